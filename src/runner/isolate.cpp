#include "runner/isolate.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/text.hpp"

namespace ema {
namespace {

constexpr std::size_t tail_keep = 4096;
constexpr double drain_grace = 1.0;  // seconds ema still reads pipes after the command has ended
constexpr double guard_grace = 5.0;  // seconds the guard has to act on SIGTERM before it is killed

struct fd_pair {
  int r = -1, w = -1;
  fd_pair() {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    r = p[0];
    w = p[1];
  }
};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// What the guard tells ema: first the command's pid (ended = 0), then how it ended (ended = 1).
struct guard_report {
  std::int32_t ended = 0;
  std::int32_t pid = 0;
  std::int32_t wait_status = 0;
  std::int32_t spare = 0;
  std::int64_t user_us = 0, sys_us = 0, max_rss_kib = 0, wall_ns = 0;
};

// ---- The guard: a forked copy of ema. Only async-signal-safe calls from here to its _exit, since
// ---- ema may have had other threads when it forked.

std::int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void say(const char* text) {
  auto k = write(2, text, std::strlen(text));
  (void)k;
}

void write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size) {
    const auto k = write(fd, p, size);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    p += k;
    size -= static_cast<std::size_t>(k);
  }
}

// The parent of `pid`, read from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold any
// byte, so the fields are counted from its last ')'); -1 when it cannot be read.
long parent_of(long pid) {
  char path[64] = "/proc/";
  char digits[24];
  int k = 0;
  for (long v = pid; v > 0 && k < 23; v /= 10) digits[k++] = static_cast<char>('0' + v % 10);
  int at = 6;
  while (k) path[at++] = digits[--k];
  const char tail[] = "/stat";
  for (char c : tail) path[at++] = c;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  const auto n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  const char* close_paren = nullptr;
  for (ssize_t i = 0; i < n; ++i)
    if (buf[i] == ')') close_paren = buf + i;
  if (!close_paren || close_paren + 4 >= buf + n) return -1;
  const char* p = close_paren + 4;  // ") S " then the parent
  long ppid = 0;
  while (p < buf + n && *p >= '0' && *p <= '9') ppid = ppid * 10 + (*p++ - '0');
  return ppid;
}

// SIGKILL to every child of this process found in /proc; true when there was one.
bool kill_children() {
  struct dirent64_head {
    std::uint64_t ino;
    std::int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
  };
  const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  const long self = getpid();
  bool any = false;
  alignas(8) char buf[8192];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64_head*>(buf + at);
      at += e->reclen;
      long pid = 0;
      const char* c = e->name;
      if (*c < '1' || *c > '9') continue;
      while (*c >= '0' && *c <= '9') pid = pid * 10 + (*c++ - '0');
      if (*c || pid == self) continue;
      if (parent_of(pid) == self) {
        kill(static_cast<pid_t>(pid), SIGKILL);
        any = true;
      }
    }
  }
  close(dir);
  return any;
}

// Kills and reaps everything left under the guard: the command's group, then every process that
// was re-parented to the guard, round after round (a killed process's children come to the guard
// in turn), for at most two seconds (a process in uninterruptible sleep cannot be hurried).
void end_descendants(pid_t command) {
  kill(-command, SIGKILL);
  for (int round = 0; round < 200; ++round) {
    int status = 0;
    pid_t p = 0;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
    }
    if (p < 0 && errno == ECHILD) return;
    kill_children();
    timespec pause{0, 10 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
}

// Closes every descriptor of this process but the standard three and `keep`: a guard forked from
// ema must not hold what ema opened (the database, whose experiment claim is a lock on its open
// file description: a guard outliving a killed ema would keep the experiment claimed).
void close_all_but(std::initializer_list<int> keep) {
  int kept[8];
  std::size_t count = 0;
  for (const int fd : keep)
    if (fd > 2 && count < std::size(kept)) kept[count++] = fd;
  for (std::size_t i = 1; i < count; ++i)  // ascending (an insertion sort: at most 8, and no std::sort in a forked child)
    for (std::size_t j = i; j > 0 && kept[j - 1] > kept[j]; --j) std::swap(kept[j - 1], kept[j]);
  unsigned from = 3;
  for (std::size_t i = 0; i <= count; ++i) {
    const unsigned to = i < count ? static_cast<unsigned>(kept[i]) - 1 : ~0u;
    if (from <= to && ::close_range(from, to, 0) != 0)  // without close_range (a kernel before 5.9): one by one
      for (unsigned fd = from; fd <= std::min(to, 65535u); ++fd) ::close(static_cast<int>(fd));
    if (i < count) from = static_cast<unsigned>(kept[i]) + 1;
  }
}

/// The guard's child: the command in its own process group (so the whole group can be killed),
/// killed if the guard dies, stdin from ema, fd 3 (or stdout) and stderr to ema, default signals.
/// Async-signal-safe only, as all of the guard's code.
[[noreturn]] void become_command(pid_t guard, char* const* argv, char* const* envp, const char* cwd, int in_fd, int answer_fd, int answer_to,
                                 int err_fd) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != guard) _exit(127);
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGCHLD}) sigaction(s, &deflt, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(in_fd, 0);
  dup2(answer_fd, answer_to);
  dup2(err_fd, 2);
  if (cwd && chdir(cwd) != 0) {
    say("cannot enter the working directory ");
    say(cwd);
    say(": ");
    say(std::strerror(errno));
    say("\n");
    _exit(127);
  }
  if (envp)
    execve(argv[0], argv, envp);
  else
    execv(argv[0], argv);
  say("cannot execute ");
  say(argv[0]);
  say(": ");
  say(std::strerror(errno));
  say("\n");
  _exit(127);
}

/// Waits, in the guard, until the command ends or ema asks for its end (a timeout, an
/// interruption) or dies: then the command's whole group is killed. Its wait status and usage.
void wait_for(pid_t command, const sigset_t& watched, int& status, rusage& usage) {
  for (bool ended = false; !ended;) {
    const int sig = sigwaitinfo(&watched, nullptr);
    if (sig == SIGCHLD) {
      int s = 0;
      rusage u{};
      pid_t p = 0;
      while ((p = wait4(-1, &s, WNOHANG, &u)) > 0)
        if (p == command) ended = true, status = s, usage = u;
    } else if (sig > 0) {  // ema asks for the end (timeout, interruption) or has died
      kill(-command, SIGKILL);
      kill(command, SIGKILL);
      while (wait4(command, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      ended = true;
    }
  }
}

[[noreturn]] void guard_main(pid_t ema_pid, char* const* argv, char* const* envp, const char* cwd, int in_fd, int answer_fd, int answer_to,
                             int err_fd, int report_fd) {
  close_all_but({in_fd, answer_fd, err_fd, report_fd});
  setpgid(0, 0);
  sigset_t watched;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGTERM, SIGHUP, SIGINT}) sigaddset(&watched, s);
  sigprocmask(SIG_BLOCK, &watched, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &deflt, nullptr);  // children must stay waitable whatever ema set
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != ema_pid) _exit(127);  // ema died before the guard could watch it
  const pid_t guard = getpid();

  const std::int64_t start = monotonic_ns();
  const pid_t command = fork();
  if (command < 0) {
    say("ema: cannot start the command: fork failed\n");
    _exit(127);
  }
  if (command == 0) become_command(guard, argv, envp, cwd, in_fd, answer_fd, answer_to, err_fd);
  close(in_fd);
  close(answer_fd);
  close(err_fd);
  guard_report r;
  r.pid = command;
  write_all(report_fd, &r, sizeof r);

  int status = 0;
  rusage usage{};
  wait_for(command, watched, status, usage);
  r.wall_ns = monotonic_ns() - start;
  end_descendants(command);
  r.ended = 1;
  r.wait_status = status;
  r.user_us = static_cast<std::int64_t>(usage.ru_utime.tv_sec) * 1000000 + usage.ru_utime.tv_usec;
  r.sys_us = static_cast<std::int64_t>(usage.ru_stime.tv_sec) * 1000000 + usage.ru_stime.tv_usec;
  r.max_rss_kib = usage.ru_maxrss;
  write_all(report_fd, &r, sizeof r);
  _exit(0);
}

// ---- ema's side.

void keep_tail(std::string& tail, const char* data, std::size_t size) {
  if (size >= tail_keep) {
    tail.assign(data + size - tail_keep, tail_keep);
    return;
  }
  tail.append(data, size);
  if (tail.size() > 2 * tail_keep) tail.erase(0, tail.size() - tail_keep);
}

// The lines of a stdout that start with a prefix, kept within bounds; every other byte is only
// counted (and the last few KiB kept as the tail).
class line_keeper {
 public:
  explicit line_keeper(const isolation& how) : how_(how) {}

  /// Feeds bytes; returns a problem (the child must be stopped) or an empty string.
  std::string feed(const char* data, std::size_t size, std::string& kept) {
    for (std::size_t i = 0; i < size;) {
      const char* nl = static_cast<const char*>(std::memchr(data + i, '\n', size - i));
      const std::size_t end = nl ? static_cast<std::size_t>(nl - data) : size;
      if (auto why = piece(data + i, end - i); !why.empty()) return why;
      if (!nl) break;
      if (auto why = finish(kept); !why.empty()) return why;
      i = end + 1;
    }
    return "";
  }
  /// At the end of the stream: an unterminated last line counts.
  std::string close(std::string& kept) { return line_.empty() ? std::string() : finish(kept); }

 private:
  std::string piece(const char* p, std::size_t n) {
    if (skipping_ || !n) return "";
    line_.append(p, n);
    const auto& prefix = how_.keep_prefix;
    const std::size_t common = std::min(line_.size(), prefix.size());
    if (line_.compare(0, common, prefix, 0, common) != 0) {
      skipping_ = true;
      line_.clear();
      return "";
    }
    if (line_.size() > how_.line_limit)
      return fmt::format("a line of its output starting with '{}' is longer than {} bytes", prefix, how_.line_limit);
    return "";
  }
  std::string finish(std::string& kept) {
    const bool keep = !skipping_ && line_.size() >= how_.keep_prefix.size();
    if (keep) {
      if (kept.size() + line_.size() + 1 > how_.kept_limit)
        return fmt::format("it printed more than {} MiB of lines starting with '{}'", how_.kept_limit >> 20, how_.keep_prefix);
      kept += line_;
      kept += '\n';
    }
    line_.clear();
    skipping_ = false;
    return "";
  }

  const isolation& how_;
  std::string line_;
  bool skipping_ = false;
};

/// write(2) to a pipe whose reader may have gone (a command that ended before reading its input):
/// EPIPE, without the SIGPIPE that would end ema.
ssize_t write_quietly(int fd, const void* data, std::size_t size) {
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  const auto k = write(fd, data, size);
  const int error = errno;
  if (k < 0 && error == EPIPE && !sigismember(&before, SIGPIPE)) {
    const timespec now{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &now);  // the SIGPIPE this write raised, taken before it is unblocked
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = error;
  return k;
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::string output_tail(std::string s, std::size_t keep) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() > keep) s = "…" + s.substr(s.size() - keep);
  return valid_utf8(s);
}

std::string describe_signal(int sig) {
  const char* name = strsignal(sig);
  return fmt::format("signal {} ({})", sig, name ? name : "unknown");
}

child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, double timeout_seconds, const std::atomic<bool>* stop,
                           answer_channel channel) {
  isolation how;
  how.timeout = timeout_seconds;
  how.stop = stop;
  how.channel = channel;
  return run_isolated(argv, input, how);
}

namespace {

/// ema's side of an isolated run, once the guard is forked: its pipes polled until they close (the
/// input written without blocking, the answer, stderr and the guard's reports read), the stop flag
/// and the deadline watched, and the outcome built from the guard's final report.
class supervisor {
 public:
  using clock = std::chrono::steady_clock;

  supervisor(const isolation& how, std::string input, pid_t guard, fd_pair& in, fd_pair& answer, fd_pair& err, fd_pair& report,
             clock::time_point start, bool framed = false)
      : how_(how),
        input_(std::move(input)),
        framed_(framed),
        guard_(guard),
        in_(in.w),
        answer_(answer.r),
        err_(err.r),
        report_(report.r),
        start_(start),
        deadline_(start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(how.timeout))),
        asked_at_(start),
        lines_(how),
        stop_(how.stop) {
    // The input is small (a point's specification), but write it without blocking forever.
    fcntl(in_, F_SETFL, O_NONBLOCK);
  }

  /// Polls until every pipe has closed (or a holder of one escaped the command's end); framed, until
  /// an answer frame has come whole, or the command has ended.
  void run() {
    while ((answer_ >= 0 || err_ >= 0 || report_ >= 0) && !answered_) {
      const auto now = clock::now();
      if (ended_ && seconds_between(ended_at_, now) > drain_grace) break;  // a holder escaped: stop waiting on it
      watch(now);
      if (!framed_ && in_ >= 0 && written_ == input_.size()) close_fd(in_);
      if (!poll_once()) break;
    }
  }

  /// A session's next request: written whole before its answer is read; the deadline and the stop
  /// flag count from now.
  void request(std::string input, double timeout, const std::atomic<bool>* stop) {
    input_ = std::move(input);
    written_ = 0;
    stop_ = stop;
    const auto now = clock::now();
    deadline_ = now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(timeout));
    asked_at_ = now;
    answered_ = false;
    out_.answer.clear();
    out_.stderr_tail.clear();
    out_.output_bytes = 0;
  }
  /// The answer of the request run() has just seen through; the command still runs.
  child_outcome answer() {
    child_outcome a;
    a.answered = true;
    a.answer = std::move(out_.answer);
    a.stderr_tail = std::move(out_.stderr_tail);
    if (a.stderr_tail.size() > tail_keep) a.stderr_tail.erase(0, a.stderr_tail.size() - tail_keep);
    a.output_bytes = out_.output_bytes;
    a.wall = seconds_between(asked_at_, clock::now());
    out_ = child_outcome{};
    return a;
  }
  bool answered() const { return answered_; }
  bool running() const { return !ended_ && !killed_ && report_ >= 0 && !final_.ended; }
  /// Reads what has come without waiting (a command that ended between requests: the guard's report).
  void look() {
    for (int i = 0; i < 4 && running(); ++i)
      if (!poll_once(0)) break;
  }
  /// EOF on the command's stdin (a serving worker then exits).
  void close_input() { close_fd(in_); }
  /// Asks the guard to end the command now.
  void kill_now() { stop_child(); }

  /// Closes what is open, ends the guard where the loop broke early, and reaps it.
  child_outcome finish() {
    close_fd(in_);
    close_fd(answer_);
    close_fd(err_);
    close_fd(report_);
    if (!ended_) {  // the loop broke on a poll error: end the guard and its command
      kill(guard_, SIGKILL);
      if (command_ > 0) kill(-command_, SIGKILL), kill(command_, SIGKILL);
    }
    int guard_status = 0;
    while (waitpid(guard_, &guard_status, 0) < 0 && errno == EINTR) {
    }
    if (final_.ended) {
      const int status = final_.wait_status;
      out_.wall = framed_ ? seconds_between(asked_at_, clock::now()) : static_cast<double>(final_.wall_ns) * 1e-9;
      out_.user = static_cast<double>(final_.user_us) * 1e-6;
      out_.sys = static_cast<double>(final_.sys_us) * 1e-6;
      out_.max_rss_kib = final_.max_rss_kib;
      if (WIFEXITED(status)) {
        out_.exited = true;
        out_.exit_code = WEXITSTATUS(status);
      } else if (WIFSIGNALED(status)) {
        out_.signal = WTERMSIG(status);
      }
    } else {
      // The guard itself was killed (by us, past its grace, or by someone else): the command went
      // with it (PR_SET_PDEATHSIG), by SIGKILL.
      out_.wall = seconds_between(framed_ ? asked_at_ : start_, clock::now());
      out_.signal = WIFSIGNALED(guard_status) ? WTERMSIG(guard_status) : SIGKILL;
    }
    if (out_.stderr_tail.size() > tail_keep) out_.stderr_tail.erase(0, out_.stderr_tail.size() - tail_keep);
    if (out_.stdout_tail.size() > tail_keep) out_.stdout_tail.erase(0, out_.stdout_tail.size() - tail_keep);
    return std::move(out_);
  }

 private:
  /// The stop flag and the deadline end the command through the guard; a guard that does not act
  /// within its grace is killed from here, with the command's process group.
  void watch(clock::time_point now) {
    if (!killed_) {
      if (stop_ && stop_->load()) {
        out_.interrupted = true;
        stop_child();
      } else if (now > deadline_) {
        out_.timed_out = true;
        stop_child();
      }
    } else if (!ended_ && !forced_ && seconds_between(killed_at_, now) > guard_grace) {
      forced_ = true;  // the guard did not end the command in time: do it from here
      kill(guard_, SIGKILL);
      if (command_ > 0) kill(-command_, SIGKILL), kill(command_, SIGKILL);
    }
  }

  /// One poll of the open pipes, 100 ms at most; false on a poll error.
  bool poll_once(int wait_ms = 100) {
    pollfd fds[4];
    int nfds = 0;
    for (int fd : {answer_, err_, report_})
      if (fd >= 0) fds[nfds++] = {fd, POLLIN, 0};
    if (in_ >= 0 && written_ < input_.size()) fds[nfds++] = {in_, POLLOUT, 0};
    const int rc = poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (rc < 0 && errno != EINTR) return false;
    for (int i = 0; i < nfds && rc > 0; ++i) {
      if (!fds[i].revents) continue;
      const int fd = fds[i].fd;
      if (fd == in_) {
        const auto k = write_quietly(in_, input_.data() + written_, input_.size() - written_);
        if (k > 0) written_ += static_cast<std::size_t>(k);
        if (k < 0 && errno != EAGAIN) close_fd(in_);
        continue;
      }
      const auto k = read(fd, buf_, sizeof buf_);
      if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (k <= 0)
        on_end(fd);
      else
        on_bytes(fd, static_cast<std::size_t>(k));
    }
    return true;
  }

  /// A pipe closed: the guard's reports (the command has ended), the answer (its last line
  /// checked), or stderr.
  void on_end(int fd) {
    if (fd == report_) {
      close_fd(report_);
      ended_ = true;
      ended_at_ = clock::now();
    } else if (fd == answer_) {
      if (how_.channel == answer_channel::stdout_)
        if (auto why = lines_.close(out_.answer); !why.empty()) problem(why);
      close_fd(answer_);
    } else {
      close_fd(err_);
    }
  }

  /// Bytes read from a pipe: the guard's reports (the command's pid, its end), stderr's tail, or
  /// the answer (on file descriptor 3 within its limit, or as lines on stdout).
  void on_bytes(int fd, std::size_t size) {
    if (fd == report_) {
      report_bytes_.append(buf_, size);
      while (report_bytes_.size() >= sizeof(guard_report)) {
        guard_report r;
        std::memcpy(&r, report_bytes_.data(), sizeof r);
        report_bytes_.erase(0, sizeof r);
        if (r.ended)
          final_ = r;
        else
          command_ = r.pid;
      }
    } else if (fd == err_) {
      keep_tail(out_.stderr_tail, buf_, size);
    } else {
      out_.output_bytes += size;
      if (framed_) {
        frame_bytes(size);
      } else if (how_.channel == answer_channel::fd3) {
        if (out_.answer.size() + size > how_.answer_limit)
          problem(fmt::format("its answer on file descriptor 3 exceeded {} MiB", how_.answer_limit >> 20));
        else
          out_.answer.append(buf_, size);
      } else {
        keep_tail(out_.stdout_tail, buf_, size);
        if (auto why = lines_.feed(buf_, size, out_.answer); !why.empty()) problem(why);
      }
    }
  }

  /// A session's answer bytes: a frame's length line, then its payload, whole once all has come.
  /// Bytes no request asked for, a malformed length or one over the limit end the command.
  void frame_bytes(std::size_t size) {
    if (answered_ || (!input_.empty() && written_ < input_.size())) return problem("it wrote on file descriptor 3 before it was asked");
    frame_.append(buf_, size);
    const auto nl = frame_.find('\n');
    if (nl == std::string::npos) {
      if (frame_.size() > 20) problem("its answer frame does not start with its length and a newline");
      return;
    }
    std::size_t length = 0;
    if (nl == 0 || nl > 19 || frame_.find_first_not_of("0123456789") != nl)
      return problem("its answer frame does not start with its length and a newline");
    for (std::size_t i = 0; i < nl; ++i) length = length * 10 + static_cast<std::size_t>(frame_[i] - '0');
    if (length > how_.answer_limit) return problem(fmt::format("its answer on file descriptor 3 exceeded {} MiB", how_.answer_limit >> 20));
    if (frame_.size() - nl - 1 < length) return;
    if (frame_.size() - nl - 1 > length) return problem("it wrote on file descriptor 3 past its answer frame");
    out_.answer = frame_.substr(nl + 1);
    frame_.clear();
    answered_ = true;
  }

  void stop_child() {
    if (killed_) return;
    killed_ = true;
    killed_at_ = clock::now();
    kill(guard_, SIGTERM);
  }

  /// What is wrong with the command's output: the first is kept, the answer closed, the command ended.
  void problem(std::string why) {
    if (out_.output_problem.empty()) out_.output_problem = std::move(why);
    close_fd(answer_);
    stop_child();
  }

  const isolation& how_;
  std::string input_;
  bool framed_;
  pid_t guard_;
  int &in_, &answer_, &err_, &report_;
  clock::time_point start_, deadline_, asked_at_, ended_at_{}, killed_at_{};
  line_keeper lines_;
  const std::atomic<bool>* stop_;
  child_outcome out_;
  std::string report_bytes_, frame_;
  bool answered_ = false;
  guard_report final_{};
  pid_t command_ = 0;
  std::size_t written_ = 0;
  bool ended_ = false, killed_ = false, forced_ = false;
  char buf_[65536];
};

/// The CPUs this process could run on as it started, where the OpenMP runtime has since bound it
/// to fewer: with OMP_PROC_BIND (or OMP_PLACES) set, libgomp binds the initial thread to its first
/// place as it starts, and every child would inherit that one place — a worker's threads, or a
/// user's OpenMP program under `ema exec`, all on one CPU. The union of the places is the mask the
/// user gave; the command gets it back. Nothing when no place is defined (nothing was bound).
bool startup_cpus(cpu_set_t& set) {
#ifdef _OPENMP
  const int places = omp_get_num_places();
  if (places <= 0) return false;
  CPU_ZERO(&set);
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(static_cast<std::size_t>(std::max(0, omp_get_place_num_procs(p))));
    omp_get_place_proc_ids(p, ids.data());
    for (const int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  }
  return CPU_COUNT(&set) > 0;
#else
  (void)set;
  return false;
#endif
}

}  // namespace

namespace {

/// A command started under its guard: the guard's pid, ema's ends of the pipes, the start.
struct spawned {
  pid_t guard = -1;
  fd_pair in, answer, err, report;
  std::chrono::steady_clock::time_point start;
};

/// Forks the guard, which starts `argv` (runner/isolate.hpp: how the two are arranged).
void spawn(const std::vector<std::string>& argv, const isolation& how, spawned& sp) {
  if (argv.empty()) throw std::runtime_error("run_isolated: no command");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const char* cwd = how.cwd.empty() ? nullptr : how.cwd.c_str();
  // The command's environment where some of it is set: built here, before the fork (the guard's
  // code is async-signal-safe only).
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  if (!how.env.empty()) {
    auto name_of = [](std::string_view kv) { return kv.substr(0, kv.find('=')); };
    for (char** e = environ; e && *e; ++e)
      if (std::none_of(how.env.begin(), how.env.end(), [&](const std::string& kv) { return name_of(kv) == name_of(*e); }))
        env_strings.emplace_back(*e);
    for (const auto& kv : how.env) {
      if (kv.find('=') == std::string::npos || kv.front() == '=') throw std::runtime_error(fmt::format("run_isolated: '{}' is not NAME=VALUE", kv));
      env_strings.push_back(kv);
    }
    for (auto& kv : env_strings) envp.push_back(kv.data());
    envp.push_back(nullptr);
  }
  const int answer_to = how.channel == answer_channel::fd3 ? 3 : 1;

  cpu_set_t cpus;
  const bool rebind = startup_cpus(cpus);
  sp.start = std::chrono::steady_clock::now();
  const pid_t ema_pid = getpid();
  const pid_t guard = fork();
  if (guard < 0) {
    for (fd_pair* p : {&sp.in, &sp.answer, &sp.err, &sp.report}) close_fd(p->r), close_fd(p->w);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (guard == 0) {
    if (rebind) sched_setaffinity(0, sizeof cpus, &cpus);  // the guard, and the command it forks
    close(sp.in.w);
    close(sp.answer.r);
    close(sp.err.r);
    close(sp.report.r);
    guard_main(ema_pid, args.data(), envp.empty() ? nullptr : envp.data(), cwd, sp.in.r, sp.answer.w, answer_to, sp.err.w, sp.report.w);
  }
  setpgid(guard, guard);
  sp.guard = guard;
  close_fd(sp.in.r);
  close_fd(sp.answer.w);
  close_fd(sp.err.w);
  close_fd(sp.report.w);
}

}  // namespace

child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, const isolation& how) {
  spawned sp;
  spawn(argv, how, sp);
  supervisor s(how, input, sp.guard, sp.in, sp.answer, sp.err, sp.report, sp.start);
  s.run();
  return s.finish();
}

std::string frame(const std::string& payload) { return fmt::format("{}\n{}", payload.size(), payload); }

struct worker_session::impl {
  isolation how;
  spawned sp;
  std::optional<supervisor> sup;
  bool ended = false;
};

worker_session::worker_session(const std::vector<std::string>& argv, const isolation& how) : impl_(std::make_unique<impl>()) {
  if (how.channel != answer_channel::fd3) throw std::runtime_error("worker_session: the answer channel must be file descriptor 3");
  impl_->how = how;
  spawn(argv, impl_->how, impl_->sp);
  auto& sp = impl_->sp;
  impl_->sup.emplace(impl_->how, std::string(), sp.guard, sp.in, sp.answer, sp.err, sp.report, sp.start, true);
}

worker_session::~worker_session() { end(); }

bool worker_session::alive() {
  if (impl_->ended) return false;
  impl_->sup->look();
  return impl_->sup->running();
}

int worker_session::requests() const { return requests_; }

child_outcome worker_session::exchange(const std::string& request, double timeout, const std::atomic<bool>* stop) {
  if (impl_->ended) throw std::logic_error("worker_session: a request after the session ended");
  auto& sup = *impl_->sup;
  ++requests_;
  sup.request(frame(request), timeout, stop);
  sup.run();
  if (sup.answered()) return sup.answer();
  impl_->ended = true;  // the command ended, or is being ended: how, as run_isolated reports it
  return sup.finish();
}

void worker_session::end(double grace) {
  if (impl_->ended) return;
  impl_->ended = true;
  auto& sup = *impl_->sup;
  sup.close_input();
  // A grace to exit on EOF; past it, the guard ends the command and everything under it.
  sup.request(std::string(), grace, nullptr);
  sup.run();
  if (!sup.answered()) {
    (void)sup.finish();
    return;
  }
  sup.kill_now();  // it answered a request no one sent: end it anyway
  sup.run();
  (void)sup.finish();
}

}  // namespace ema
