# Every dependency comes from a Debian 12 package (or, for CUDA, the toolkit). Nothing is downloaded.
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3.10 CONFIG REQUIRED)
find_package(fmt 9 CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(Threads REQUIRED)

# CMake 4 renamed the imported target; 3.25 only knows SQLite::SQLite3.
if(TARGET SQLite3::SQLite3)
  set(EMA_SQLITE_TARGET SQLite3::SQLite3)
else()
  set(EMA_SQLITE_TARGET SQLite::SQLite3)
endif()
# A static libsqlite3.a (the GPU machine's kit) needs the libraries the shared one brings itself.
get_target_property(_ema_sqlite_lib ${EMA_SQLITE_TARGET} IMPORTED_LOCATION)
if(_ema_sqlite_lib MATCHES "\\.a$")
  set_property(TARGET ${EMA_SQLITE_TARGET} APPEND PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads ${CMAKE_DL_LIBS} m)
endif()

find_package(OpenMP COMPONENTS CXX)
if(OpenMP_CXX_FOUND)
  set(_ema_omp_default ON)
else()
  set(_ema_omp_default OFF)
endif()
option(EMA_WITH_OPENMP "Build the OpenMP variants" ${_ema_omp_default})
if(EMA_WITH_OPENMP AND NOT OpenMP_CXX_FOUND)
  message(FATAL_ERROR "EMA_WITH_OPENMP=ON but the compiler has no OpenMP support")
endif()
