# Writes the current git commit into a generated source at every build, touching it only when it
# changed, so stored experiments always name the commit that produced them.
set(EMA_GENERATED_DIR "${CMAKE_BINARY_DIR}/generated")
add_custom_target(ema_git_commit
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${EMA_GENERATED_DIR}/git_commit.cpp
          -P ${CMAKE_SOURCE_DIR}/cmake/write_git_commit.cmake
  BYPRODUCTS ${EMA_GENERATED_DIR}/git_commit.cpp
  COMMENT "Recording the git commit")
