// The exit codes of `ema`, documented in docs/errors.md.
#pragma once

namespace ema::exit_code {

constexpr int ok = 0;  ///< everything ran; every point ok (or skipped)
constexpr int points_failed =
    1;  ///< the sweep finished, but some point failed, crashed, timed out, ran out of memory or failed verification; `ema compare --fail-if-slower`: a point got slower
constexpr int usage = 2;          ///< bad command line: unknown problem, variant or parameter, malformed sizes
constexpr int database = 3;       ///< the database cannot be used: not writable, locked, not an ema database
constexpr int internal = 4;       ///< an unexpected error in ema itself
constexpr int output = 5;         ///< a file ema was asked to write could not be written (a full disk); what was measured is stored
constexpr int interrupted = 130;  ///< stopped by SIGINT or SIGTERM; finished points are stored

}  // namespace ema::exit_code
