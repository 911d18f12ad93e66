# SPDX-License-Identifier: GPL-3.0-or-later
# CPack: a Debian package of the installed tree (cpack -G DEB in the build
# directory, or `cmake --build BUILD --target package`). Installs under /usr.
#
# Dependencies: dpkg-shlibdeps (Debian package dpkg-dev) derives them with
# versions from the libraries the executable links directly (Qt PrintSupport
# comes through libqcustomplot2.1-qt6); without it the same packages are
# listed by hand. Either way qt6-qpa-plugins is added, because
# the xcb and wayland platform plugins are loaded at run time, not linked.
include(GNUInstallDirs)

set(ATTNLAB_PACKAGE_MAINTAINER "Attention Lab developers <maintainers@attention-lab.invalid>"
    CACHE STRING "Maintainer field of the Debian package: Name <email>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attention-lab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Attention Lab")
set(CPACK_PACKAGE_CONTACT "${ATTNLAB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Attention Lab computes scaled dot-product self-attention on a sentence and\n\
shows each step of softmax(Q K^T / sqrt(d_k)) V as labelled heatmaps: the raw\n\
and scaled scores, the attention weights and the context vectors. It\n\
reproduces the worked example of Sebastian Raschka's self-attention article,\n\
follows one query through its softmax, shows why the scores are divided by\n\
sqrt(d_k), and exports every matrix to JSON and CSV, also headless from the\n\
command line.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/attention-lab/attention-lab")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ATTNLAB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
find_program(ATTNLAB_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(ATTNLAB_DPKG_SHLIBDEPS)
if(ATTNLAB_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  # Built against Qt 6.x, the program needs Qt 6.x or later.
  set(qt ">= ${Qt6_VERSION_MAJOR}.${Qt6_VERSION_MINOR}")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libgcc-s1, libstdc++6, libqt6core6 (${qt}), libqt6gui6 (${qt}), \
libqt6widgets6 (${qt}), libqt6svg6 (${qt}), libqcustomplot2.1-qt6, qt6-qpa-plugins")
endif()

include(CPack)
