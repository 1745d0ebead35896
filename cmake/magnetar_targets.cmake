# Helpers that give every folder under src/ the same shape:
#
#   magnetar_library(<name> SOURCES ... DEPENDS ...)
#     one static library per folder, exported as magnetar::<name>; its public
#     include root is src/, so code includes "base/result.h", "io/shard.h", ...
#   magnetar_tests(<name> SOURCES ... [DEPENDS ...])
#     one GoogleTest binary per library, magnetar_<name>_tests, registered with
#     CTest test by test and labelled <name>
#   magnetar_benchmark(<name> SOURCES ... [DEPENDS ...])
#     one Google Benchmark binary, magnetar_<name>_bench

function(magnetar_apply_warnings target)
  target_compile_options(${target} PRIVATE ${MAGNETAR_WARNINGS})
endfunction()

function(magnetar_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(magnetar_${name} STATIC ${ARG_SOURCES})
  add_library(magnetar::${name} ALIAS magnetar_${name})
  target_include_directories(magnetar_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(magnetar_${name} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
  magnetar_apply_warnings(magnetar_${name})
endfunction()

function(magnetar_tests name)
  if(NOT MAGNETAR_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  set(target magnetar_${name}_tests)
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE magnetar::${name} ${ARG_DEPENDS} GTest::gtest GTest::gmock GTest::gtest_main)
  magnetar_apply_warnings(${target})
  gtest_discover_tests(${target}
    PROPERTIES LABELS ${name} TIMEOUT 120
    DISCOVERY_TIMEOUT 60)
endfunction()

function(magnetar_benchmark name)
  if(NOT MAGNETAR_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  set(target magnetar_${name}_bench)
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE magnetar::${name} ${ARG_DEPENDS} benchmark::benchmark benchmark::benchmark_main)
  magnetar_apply_warnings(${target})
  # The allocator that ships: a benchmark measures what the programs do.
  magnetar_use_jemalloc(${target})
endfunction()

# Links the program with jemalloc (ADR 0003), except under the sanitizers, which replace
# malloc themselves. Programs only: libraries leave the allocator to their users.
function(magnetar_use_jemalloc target)
  if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
    target_link_libraries(${target} PRIVATE ${JEMALLOC_LIBRARY})
  endif()
endfunction()
