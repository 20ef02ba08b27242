# EMA_SANITIZE=ON builds everything with AddressSanitizer and UndefinedBehaviorSanitizer (the
# `asan` preset): an out-of-bounds read, a use after free, a leak, a signed overflow or a bad shift
# stops the program with a report instead of passing unseen. UBSan does not recover, so a test that
# triggers it fails. CUDA code is not instrumented (the preset builds without CUDA).
option(EMA_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(EMA_SANITIZE)
  set(_ema_sanitize -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_ema_sanitize}>")
  add_link_options(${_ema_sanitize})
  # What every test process (and the workers and guards it starts) runs under: allocations that
  # cannot be met return null (the out-of-memory tests), leaks are reported at exit. The Makefile's
  # test-asan exports the same.
  # handle_segv=0: a crash stays a signal, as the crash tests expect of a crashing variant.
  set(EMA_ASAN_OPTIONS "allocator_may_return_null=1:detect_leaks=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0")
  set(EMA_TEST_ENVIRONMENT ENVIRONMENT "ASAN_OPTIONS=${EMA_ASAN_OPTIONS}")
endif()
