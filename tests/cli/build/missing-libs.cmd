for pc in false no-such-pkg-config; do env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" -n B="$PWD/b" PKG_CONFIG=$pc CC=false 2>&1 | sed 's/^Makefile:[0-9]*: //'; done
