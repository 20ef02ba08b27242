#include "runner/isolate.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ema {
namespace {

constexpr std::size_t stderr_keep = 4096;

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

}  // namespace

std::string describe_signal(int sig) {
  const char* name = strsignal(sig);
  return fmt::format("signal {} ({})", sig, name ? name : "unknown");
}

child_outcome run_isolated(const std::vector<std::string>& argv, const std::string& input, double timeout_seconds,
                           const std::atomic<bool>* stop, answer_channel channel) {
  fd_pair in, answer, err;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // The child: its own process group (so the whole group can be killed), killed if the parent
    // dies, stdin from `in`, fd 3 (or stdout) to `answer`, stderr to `err`.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    dup2(in.r, 0);
    dup2(answer.w, channel == answer_channel::fd3 ? 3 : 1);
    dup2(err.w, 2);
    execv(args[0], args.data());
    dprintf(2, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close_fd(in.r);
  close_fd(answer.w);
  close_fd(err.w);

  // The input is small (a point's specification), but write it without blocking forever.
  fcntl(in.w, F_SETFL, O_NONBLOCK);
  std::size_t written = 0;

  child_outcome out;
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout_seconds));
  bool killed = false;
  char buf[65536];
  while (answer.r >= 0 || err.r >= 0) {
    if (in.w >= 0 && written == input.size()) close_fd(in.w);
    pollfd fds[3];
    int nfds = 0;
    if (answer.r >= 0) fds[nfds++] = {answer.r, POLLIN, 0};
    if (err.r >= 0) fds[nfds++] = {err.r, POLLIN, 0};
    if (in.w >= 0) fds[nfds++] = {in.w, POLLOUT, 0};
    int rc = poll(fds, static_cast<nfds_t>(nfds), 100);
    if (rc < 0 && errno != EINTR) break;
    if (!killed) {
      if (stop && stop->load()) {
        out.interrupted = killed = true;
      } else if (std::chrono::steady_clock::now() > deadline) {
        out.timed_out = killed = true;
      }
      if (killed) kill(-pid, SIGKILL);
    }
    for (int i = 0; i < nfds && rc > 0; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in.w) {
        ssize_t k = write(in.w, input.data() + written, input.size() - written);
        if (k > 0) written += static_cast<std::size_t>(k);
        if (k < 0 && errno != EAGAIN) close_fd(in.w);
        continue;
      }
      ssize_t k = read(fds[i].fd, buf, sizeof buf);
      if (k <= 0) {
        if (k < 0 && errno == EINTR) continue;
        if (fds[i].fd == answer.r) close_fd(answer.r);
        else close_fd(err.r);
        continue;
      }
      if (fds[i].fd == answer.r) {
        out.answer.append(buf, static_cast<std::size_t>(k));
      } else {
        out.stderr_tail.append(buf, static_cast<std::size_t>(k));
        if (out.stderr_tail.size() > 2 * stderr_keep) out.stderr_tail.erase(0, out.stderr_tail.size() - stderr_keep);
      }
    }
  }
  close_fd(in.w);
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
  // Descendants the child left behind in its group go with it.
  kill(-pid, SIGKILL);
  out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.max_rss_kib = usage.ru_maxrss;
  out.user = static_cast<double>(usage.ru_utime.tv_sec) + 1e-6 * static_cast<double>(usage.ru_utime.tv_usec);
  out.sys = static_cast<double>(usage.ru_stime.tv_sec) + 1e-6 * static_cast<double>(usage.ru_stime.tv_usec);
  if (WIFEXITED(status)) {
    out.exited = true;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  if (out.stderr_tail.size() > stderr_keep) out.stderr_tail.erase(0, out.stderr_tail.size() - stderr_keep);
  return out;
}

}  // namespace ema
