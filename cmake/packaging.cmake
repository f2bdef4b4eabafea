# Packaging: man pages and shell completion written from the CLI at build time, installed beside
# the binary, libraries, preload libraries, headers, CMake and pkg-config files and the documents
# (README.md, docs/ under share/doc/threadmap); CPack turns the
# install tree into a .deb (and an .rpm where rpmbuild exists). scripts/check-package.sh builds
# the .deb and checks it. For a distribution package configure with -DCMAKE_INSTALL_PREFIX=/usr
# (multiarch libdir on Debian, the right fallback path compiled into `threadmap run`).

# --- man pages and completion, from the same CLI11 tables as --help ---------------------------
# Running the built binary needs a native build; cross builds install no generated manuals, and
# sanitizer builds (CI's unit-test jobs, never installed) skip the step.
option(THREADMAP_BUILD_MANUALS "Generate man pages and shell completion from the CLI" ON)
set(THREADMAP_ZSH_COMPLETION_DIR "${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions" CACHE STRING
    "Where the zsh completion goes (Debian: vendor-completions; Fedora: site-functions)")
if(TARGET threadmap_cli AND THREADMAP_BUILD_MANUALS AND NOT CMAKE_CROSSCOMPILING
   AND NOT THREADMAP_SANITIZE)
  find_program(THREADMAP_GZIP gzip)
  set(manuals ${CMAKE_BINARY_DIR}/manuals)
  add_custom_command(
    OUTPUT ${manuals}/stamp
    COMMAND ${CMAKE_COMMAND} -DTHREADMAP=$<TARGET_FILE:threadmap_cli> -DOUT=${manuals}
            -DGZIP=${THREADMAP_GZIP} -DDOCDIR=${CMAKE_INSTALL_FULL_DOCDIR}
            -P ${PROJECT_SOURCE_DIR}/cmake/generate-manuals.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${manuals}/stamp
    DEPENDS threadmap_cli ${PROJECT_SOURCE_DIR}/cmake/generate-manuals.cmake
    COMMENT "Writing man pages and shell completion from threadmap's option tables"
    VERBATIM)
  add_custom_target(threadmap_manuals ALL DEPENDS ${manuals}/stamp)
  install(DIRECTORY ${manuals}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${manuals}/bash/threadmap
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions)
  install(FILES ${manuals}/zsh/_threadmap DESTINATION ${THREADMAP_ZSH_COMPLETION_DIR})
endif()

# Debian wants a copyright file in every package. The project has not stated a licence yet;
# the file says so rather than inventing one.
set(THREADMAP_LICENSE "not stated" CACHE STRING "Licence named in the packages")
set(THREADMAP_PACKAGE_CONTACT "threadmap maintainers <maintainers@threadmap.invalid>" CACHE STRING
    "Maintainer line of the .deb / Packager of the .rpm")
file(WRITE ${CMAKE_BINARY_DIR}/packaging/copyright
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: threadmap\n"
     "Comment: built from the threadmap sources with CPack (cmake/packaging.cmake)\n\n"
     "Files: *\nCopyright: the threadmap authors\nLicense: ${THREADMAP_LICENSE}\n")
# A native Debian package carries its changelog as changelog.gz (lintian: no-changelog).
string(TIMESTAMP changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/packaging/changelog
     "threadmap (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * Built with CPack from the threadmap sources (see CHANGELOG.md upstream).\n\n"
     " -- ${THREADMAP_PACKAGE_CONTACT}  ${changelog_date}\n")
file(ARCHIVE_CREATE OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
     PATHS ${CMAKE_BINARY_DIR}/packaging/changelog FORMAT raw COMPRESSION GZip COMPRESSION_LEVEL 9)
install(FILES ${CMAKE_BINARY_DIR}/packaging/copyright ${CMAKE_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The documents the man pages' SEE ALSO point to, laid out as in the sources (README.md beside
# docs/) so their links to each other still work: /usr/share/doc/threadmap/docs/tune.md.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# --- CPack --------------------------------------------------------------------------------------
set(CPACK_PACKAGE_NAME threadmap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${THREADMAP_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VENDOR "threadmap")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure the machine, plan thread placement, apply and verify it")
# Lines under 80 columns (lintian: extended-description-line-too-long).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "threadmap measures core-to-core latency and the topology, plans where threads\n"
  "should run, applies the plan (LD_PRELOAD pinning, an optional thread cache)\n"
  "and checks that it held. This package holds the threadmap command,\n"
  "libthreadmap (C and C++ API), the preload libraries, headers, CMake and\n"
  "pkg-config files, man pages, bash/zsh completion and the documentation.")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_GENERATOR DEB)
find_program(THREADMAP_RPMBUILD rpmbuild)
if(THREADMAP_RPMBUILD)
  list(APPEND CPACK_GENERATOR RPM)
endif()

# .deb
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared library's SONAME goes into a shlibs file (and the ldconfig trigger) for packages
# linking it.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# ldconfig through a dpkg trigger, not from maintainer scripts (lintian: lacks-ldconfig-trigger,
# maintscript-calls-ldconfig); our own postinst/postrm keep CPack from writing ldconfig ones.
file(WRITE ${CMAKE_BINARY_DIR}/packaging/deb/triggers "activate-noawait ldconfig\n")
foreach(script postinst postrm)
  file(WRITE ${CMAKE_BINARY_DIR}/packaging/deb/${script}
       "#!/bin/sh\n# ldconfig runs from the package's trigger.\nset -e\nexit 0\n")
  file(CHMOD ${CMAKE_BINARY_DIR}/packaging/deb/${script} PERMISSIONS OWNER_READ OWNER_WRITE
       OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/packaging/deb/triggers
    ${CMAKE_BINARY_DIR}/packaging/deb/postinst ${CMAKE_BINARY_DIR}/packaging/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
find_program(THREADMAP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(THREADMAP_DPKG_SHLIBDEPS)
  # libhwloc15, libcairo2, libfmt9, libstdc++6 ... with the versions this build linked.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1, libhwloc15, libcairo2, libfmt9")
endif()
# The completion scripts do nothing without the bash-completion framework that loads them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
# Building against it (the headers include hwloc-free C/C++ only; the CMake package finds
# Threads) needs nothing more; `threadmap latency --png/--svg` needs cairo, already above.

# .rpm
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "${THREADMAP_LICENSE}")
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/man /usr/share/man/man1 /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/zsh /usr/share/zsh/vendor-completions
    /usr/share/zsh/site-functions /usr/lib/cmake /usr/lib64/cmake /usr/lib/pkgconfig
    /usr/lib64/pkgconfig /usr/include)

include(CPack)
