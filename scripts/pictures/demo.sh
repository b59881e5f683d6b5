# shellcheck shell=bash
# Sourced by scripts/screenshots and tests/web/*screenshots.sh: the pictures
# are made in a neutral folder, /tmp/demo/project, so that none shows the
# folder of the machine that made them (the inbox lists each asker's folder).
#
# demo_enter: cd into $ASK_USER_DEMO_DIR when a caller made it already, else
# makes /tmp/demo/project (refusing when /tmp/demo is there: another run, or
# one left over) and exports it. demo_leave: removes /tmp/demo if this
# script made it. demo_check FILE...: fails when a text picture names the
# maker's folders (where the script was started, this repository, $HOME).

# Where the first of these scripts was started (the ones it runs start in the demo folder).
demo_maker=${ASK_USER_DEMO_MAKER:-$(pwd -P)}
export ASK_USER_DEMO_MAKER="$demo_maker"
demo_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
demo_made=

demo_enter() {
    if [ -z "${ASK_USER_DEMO_DIR:-}" ]; then
        if ! mkdir /tmp/demo 2>/dev/null; then
            echo "${0##*/}: /tmp/demo is there already (another run, or one left over); remove it first" >&2
            exit 1
        fi
        demo_made=/tmp/demo
        mkdir /tmp/demo/project
        export ASK_USER_DEMO_DIR=/tmp/demo/project
    fi
    cd "$ASK_USER_DEMO_DIR" || exit 1
}

demo_leave() {
    if [ -n "$demo_made" ]; then rm -rf "$demo_made"; fi
}

demo_check() {
    local file folder
    for file in "$@"; do
        for folder in "$demo_maker" "$demo_repo" "${HOME:-}"; do
            if [ "${#folder}" -gt 1 ] && grep -q -F -e "$folder" "$file"; then
                echo "${0##*/}: $file names the maker's folder ($folder)" >&2
                exit 1
            fi
        done
    done
}
