# What the libFuzzer projects (src/*/fuzz, configured by scripts/fuzz with clang++) share:
# C++20, ccache, the base libraries every target links, and magnetar_fuzzer(), which
# builds one target instrumented with -fsanitize=fuzzer,address,undefined from the few
# sources it needs. Include it after project(); `root` is the repository's root.
#   magnetar_fuzzer(<name> SOURCES <files...> [LIBS <targets...>])   (src/base's sources added)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

find_package(Boost 1.74 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)

get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(magnetar_fuzz_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

function(magnetar_fuzzer name)
  cmake_parse_arguments(arg "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${arg_SOURCES} ${root}/src/base/assert.cc ${root}/src/base/errc.cc
    ${root}/src/base/error.cc ${root}/src/base/log.cc)
  target_include_directories(${name} PRIVATE ${root}/src)
  target_compile_options(${name} PRIVATE -g -O1 -fsanitize=fuzzer ${magnetar_fuzz_sanitizers})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer ${magnetar_fuzz_sanitizers})
  target_link_libraries(${name} PRIVATE Boost::headers fmt::fmt spdlog::spdlog ${arg_LIBS})
endfunction()
