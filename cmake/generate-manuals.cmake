# Writes the man pages and shell completion from the built threadmap itself (its hidden
# --help-man / --help-completion modes read the same CLI11 tables as --help), so neither can
# drift from the options. Run by the threadmap_manuals target (cmake/packaging.cmake):
#   cmake -DTHREADMAP=bin/threadmap -DOUT=manuals [-DGZIP=/usr/bin/gzip] [-DDOCDIR=/usr/share/doc/threadmap]
#         -P generate-manuals.cmake
# DOCDIR is where the documents are installed: the pages' SEE ALSO names them there.
cmake_minimum_required(VERSION 3.25)
foreach(var THREADMAP OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "generate-manuals.cmake: -D${var}=... is required")
  endif()
endforeach()

function(capture output_file)
  execute_process(COMMAND ${THREADMAP} ${ARGN} OUTPUT_FILE ${output_file}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "threadmap ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${OUT}/man1)
file(MAKE_DIRECTORY ${OUT}/man1 ${OUT}/bash ${OUT}/zsh)
execute_process(COMMAND ${THREADMAP} --help-man --list OUTPUT_VARIABLE names
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "threadmap --help-man --list failed (${rc})")
endif()
string(REPLACE "\n" ";" names "${names}")
set(doc_dir_args)
if(DOCDIR)
  set(doc_dir_args --doc-dir ${DOCDIR})
endif()
set(pages ${OUT}/man1/threadmap.1)
capture(${OUT}/man1/threadmap.1 --help-man ${doc_dir_args})
foreach(name IN LISTS names)
  if(name)
    capture(${OUT}/man1/threadmap-${name}.1 --help-man ${doc_dir_args} ${name})
    list(APPEND pages ${OUT}/man1/threadmap-${name}.1)
  endif()
endforeach()
# Debian and Fedora ship man pages compressed; -n keeps the name and date out (same bytes
# every build).
if(GZIP)
  foreach(page IN LISTS pages)
    execute_process(COMMAND ${GZIP} -9nf ${page} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${GZIP} ${page} failed")
    endif()
  endforeach()
endif()
capture(${OUT}/bash/threadmap --help-completion bash)
capture(${OUT}/zsh/_threadmap --help-completion zsh)
