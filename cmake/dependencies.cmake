# Every third-party package comes from Debian (scripts/install-deps installs them).

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Protobuf REQUIRED)

if(MAGNETAR_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(MAGNETAR_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

# RocksDB: the embedded metadata store and the bookie's entry index. The shared
# library links faster and keeps test binaries small.
find_package(RocksDB REQUIRED)
find_package(nlohmann_json REQUIRED)
# yaml-cpp: the performance framework's scenario files. Debian 12's config exports the
# target as `yaml-cpp` (no namespace).
find_package(yaml-cpp REQUIRED)

# jemalloc: the allocator of the magnetar and magnetar-perf binaries (ADR 0003). Not in
# the Sanitize build, where AddressSanitizer brings its own.
find_library(JEMALLOC_LIBRARY NAMES jemalloc REQUIRED)

# Compression codecs of the client SDK (Pulsar's LZ4 and ZSTD message compression).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)

# ZooKeeper's C client, multi-threaded flavour (the metadata store's cluster backend).
find_library(ZOOKEEPER_MT_LIBRARY NAMES zookeeper_mt REQUIRED)
add_library(zookeeper::mt UNKNOWN IMPORTED)
# THREADED declares the synchronous calls, which only the multi-threaded library has.
set_target_properties(zookeeper::mt PROPERTIES IMPORTED_LOCATION ${ZOOKEEPER_MT_LIBRARY}
  INTERFACE_COMPILE_DEFINITIONS THREADED)
