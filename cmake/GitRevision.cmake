# Writes OUT, a header defining PTO_GIT_REVISION: the source tree's commit
# (12 hex digits, "-dirty" with uncommitted changes to tracked files), or
# "unknown" outside a git checkout. Rewritten only when it changes, so an
# unchanged tree rebuilds nothing. Run at every build (cmake -P).
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE revision RESULT_VARIABLE failed
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(failed OR revision STREQUAL "")
  set(revision "unknown")
else()
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    set(revision "${revision}-dirty")
  endif()
endif()
set(text "#define PTO_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
