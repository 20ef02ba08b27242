// Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html): the `coordinate` and
// `array` formats of real (or integer) matrices, general or symmetric, read into a dense
// row-major matrix, or only checked; a dense matrix written in the `array` format. Anything else, and any malformed line, is an error naming the
// file, the line and what is wrong; the file is read within bounds (inputs/text_file.hpp).
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace ema {

struct dense_matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  ///< row-major, rows * cols
  double at(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

/// What a check of a file found: its shape and its largest entry in magnitude (duplicates added).
struct matrix_market_info {
  std::size_t rows = 0, cols = 0;
  double largest = 0;
};

/// Reads a Matrix Market file; throws usage_error("PATH:LINE: what is wrong").
dense_matrix read_matrix_market(const std::string& path);
/// The same from a stream; `name` prefixes the errors.
dense_matrix read_matrix_market(std::istream& in, const std::string& name);

/// Reads the whole file as read_matrix_market does, every error included, without holding the
/// matrix (a plan checks a file before anything is stored).
matrix_market_info check_matrix_market(const std::string& path);
matrix_market_info check_matrix_market(std::istream& in, const std::string& name);

/// Writes a row-major rows x cols matrix as a `real general` array file (column by column, as the
/// format lists it), each value in the shortest text that reads back to the same float or double,
/// into a new file: returns false, writing nothing, when `path` exists (no file is ever replaced).
/// Written under a temporary name and renamed into place when complete; output_error naming the
/// file when it cannot be written (a full disk: the run's error, not the point's).
bool write_matrix_market(const std::string& path, std::size_t rows, std::size_t cols, const float* row_major);
bool write_matrix_market(const std::string& path, std::size_t rows, std::size_t cols, const double* row_major);

}  // namespace ema
