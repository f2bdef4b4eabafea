# The placed-CPU-count matrix (label `runtimes`, tests runtimes.cpus.*): each runtime's own
# parallelism figures under `taskset -c X` and under `threadmap run --cpus X` (and `--cpus all`,
# `--policy scatter`) must be the same, while the threads are still placed one by one
# (cpus_case.sh; README.md's second table). Included from CMakeLists.txt, which finds the
# runtimes; the probes build into the same folder, standard libraries only.
set(cpus_outputs "")
if(RT_JAVAC)
  add_custom_command(OUTPUT ${rt_bin}/CpusProbe.class
    COMMAND ${rt_cached} ${rt_bin}/CpusProbe.class ${RT_JAVAC} ${rt_src}/CpusProbe.java --
            ${RT_JAVAC} -d ${rt_bin} ${rt_src}/CpusProbe.java
    DEPENDS ${rt_src}/CpusProbe.java COMMENT "runtimes: javac CpusProbe.java" VERBATIM)
  list(APPEND cpus_outputs ${rt_bin}/CpusProbe.class)
endif()
if(RT_RUSTC)
  add_custom_command(OUTPUT ${rt_bin}/rust_cpus_probe
    COMMAND ${rt_cached} ${rt_bin}/rust_cpus_probe ${RT_RUSTC} ${rt_src}/cpus_probe.rs --
            ${RT_RUSTC} --edition 2021 -O -o ${rt_bin}/rust_cpus_probe ${rt_src}/cpus_probe.rs
    DEPENDS ${rt_src}/cpus_probe.rs COMMENT "runtimes: rustc cpus_probe.rs" VERBATIM)
  list(APPEND cpus_outputs ${rt_bin}/rust_cpus_probe)
endif()
if(RT_GO)
  # The same go cache as spawn_cgo.go (CMakeLists.txt). CGO_ENABLED=0 makes the static program
  # (no PT_INTERP), as plain `go build` does on most machines.
  foreach(kind cgo static)
    if(kind STREQUAL "cgo")
      set(cgo 1)
      set(source cpus_probe_cgo.go)
    else()
      set(cgo 0)
      set(source cpus_probe.go)
    endif()
    add_custom_command(OUTPUT ${rt_bin}/go_cpus_probe_${kind}
      COMMAND ${rt_cached} ${rt_bin}/go_cpus_probe_${kind} ${RT_GO},${CMAKE_C_COMPILER}
              ${rt_src}/${source} --
              ${CMAKE_COMMAND} -E env GOPROXY=off GOTOOLCHAIN=local GOWORK=off GOFLAGS=
              GOCACHE=${go_cache} CGO_ENABLED=${cgo} CC=${CMAKE_C_COMPILER}
              ${RT_GO} build -o ${rt_bin}/go_cpus_probe_${kind} ${rt_src}/${source}
      WORKING_DIRECTORY ${rt_src}
      DEPENDS ${rt_src}/${source} COMMENT "runtimes: go build ${source}" VERBATIM)
    list(APPEND cpus_outputs ${rt_bin}/go_cpus_probe_${kind})
  endforeach()
endif()
add_custom_target(runtimes_cpus_programs ALL DEPENDS ${cpus_outputs})
add_executable(runtime_cpus_c cpus_c.c)
target_link_libraries(runtime_cpus_c PRIVATE Threads::Threads)
if(OpenMP_C_FOUND)
  add_executable(runtime_cpus_omp cpus_omp.c)
  target_link_libraries(runtime_cpus_omp PRIVATE OpenMP::OpenMP_C)
endif()
find_path(RT_TBB_INCLUDE tbb/task_arena.h)
find_library(RT_TBB_LIBRARY tbb)
if(RT_TBB_INCLUDE AND RT_TBB_LIBRARY)
  add_executable(runtime_cpus_tbb cpus_tbb.cpp)
  target_include_directories(runtime_cpus_tbb PRIVATE ${RT_TBB_INCLUDE})
  target_link_libraries(runtime_cpus_tbb PRIVATE ${RT_TBB_LIBRARY} Threads::Threads)
endif()

# cpus_case(NAME [NEEDS item...] [SKIP reason] [STATIC] COMMAND cmd...): as runtime_case.
function(cpus_case name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC" "SKIP" "NEEDS;COMMAND")
  string(REPLACE ";" "," needs "${arg_NEEDS}")
  set(extra "")
  if(arg_SKIP)
    list(APPEND extra --skip "${arg_SKIP}")
  endif()
  if(arg_STATIC)
    list(APPEND extra --static)
  endif()
  add_test(NAME runtimes.cpus.${name}
           COMMAND ${rt_src}/cpus_case.sh --threadmap $<TARGET_FILE:threadmap_cli>
                   --needs "${needs}" ${extra} -- ${arg_COMMAND})
  set_tests_properties(runtimes.cpus.${name} PROPERTIES LABELS "runtimes" SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "THREADMAP_SANITIZE=${THREADMAP_SANITIZE}")
endfunction()

# A compiled probe whose compiler is missing is reported as that compiler not installed.
macro(cpus_needs var compiler file)
  if(${compiler})
    set(${var} ${file})
  else()
    string(TOLOWER "${compiler}" missing)
    string(REPLACE "rt_" "" missing "${missing}")
    set(${var} ${missing})
  endif()
endmacro()

cpus_case(c COMMAND $<TARGET_FILE:runtime_cpus_c>)
cpus_needs(java_probe RT_JAVAC ${rt_bin}/CpusProbe.class)
cpus_case(java NEEDS ${RT_JAVA} ${java_probe} COMMAND ${RT_JAVA} -cp ${rt_bin} CpusProbe)
cpus_case(node NEEDS ${RT_NODE} COMMAND ${RT_NODE} ${rt_src}/cpus_probe.js)
cpus_needs(go_cgo_probe RT_GO ${rt_bin}/go_cpus_probe_cgo)
cpus_case(go.cgo NEEDS ${go_cgo_probe} COMMAND ${rt_bin}/go_cpus_probe_cgo)
cpus_needs(go_static_probe RT_GO ${rt_bin}/go_cpus_probe_static)
cpus_case(go.static STATIC NEEDS ${go_static_probe} COMMAND ${rt_bin}/go_cpus_probe_static)
cpus_needs(rust_probe RT_RUSTC ${rt_bin}/rust_cpus_probe)
cpus_case(rust NEEDS ${rust_probe} COMMAND ${rt_bin}/rust_cpus_probe)
cpus_case(python NEEDS ${RT_PYTHON3} COMMAND ${RT_PYTHON3} ${rt_src}/cpus_probe.py)
cpus_case(perl NEEDS ${RT_PERL} COMMAND ${RT_PERL} ${rt_src}/cpus_probe.pl)
if(OpenMP_C_FOUND)
  cpus_case(openmp COMMAND $<TARGET_FILE:runtime_cpus_omp>)
else()
  cpus_case(openmp SKIP "the C compiler has no OpenMP" COMMAND true)
endif()
if(TARGET runtime_cpus_tbb)
  cpus_case(tbb COMMAND $<TARGET_FILE:runtime_cpus_tbb>)
else()
  cpus_case(tbb SKIP "TBB (tbb/task_arena.h and libtbb) is not installed" COMMAND true)
endif()
# The tools, through `sh -c` as a user types them: the shell is a wrapper that passes the rules
# on, and the tool's main thread reads the share. They list no threads (nothing to read them
# with), so only their sizes are compared.
cpus_case(tools.nproc NEEDS nproc COMMAND sh -c "echo size nproc $(nproc)")
cpus_case(tools.xz NEEDS xz ${rt_bin}/lines.txt
          COMMAND sh -c "xz -T0 -vv -1 --block-size=262144 -c '${rt_bin}/lines.txt' 2>&1 >/dev/null | sed -n 's/^xz: Using up to \\([0-9]*\\) threads.*/size xz_threads \\1/p'")
