# Compiler, language level, warnings, ccache and the Sanitize build type.

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # clang 14 with libstdc++ does not enable Asio's awaitable support.
  message(FATAL_ERROR "magnetar builds with GCC (found ${CMAKE_CXX_COMPILER_ID})")
endif()

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

# Warnings apply to our own targets only (see magnetar_targets.cmake), so that
# generated protobuf code and third-party headers don't break the build.
# -Wmismatched-new-delete: GCC 12 reports coroutine frames that Asio allocates
# and frees with its own operators as mismatched (a known false positive).
set(MAGNETAR_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-mismatched-new-delete)

set(_sanitize_flags "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined")
set(CMAKE_CXX_FLAGS_SANITIZE "-O1 -g ${_sanitize_flags}" CACHE STRING "" FORCE)
set(CMAKE_EXE_LINKER_FLAGS_SANITIZE "${_sanitize_flags}" CACHE STRING "" FORCE)
set(CMAKE_SHARED_LINKER_FLAGS_SANITIZE "${_sanitize_flags}" CACHE STRING "" FORCE)
mark_as_advanced(CMAKE_CXX_FLAGS_SANITIZE CMAKE_EXE_LINKER_FLAGS_SANITIZE CMAKE_SHARED_LINKER_FLAGS_SANITIZE)
