#!/usr/bin/env bash
# bash scripts/lib/build.sh (npm run build): compiles the components, their migrations, the
# knexfile and the stream-layout script to JavaScript in dist/ (tsconfig.build.json), what
# ./scripts/run.sh and the image run: no TypeScript loader at run time. It also writes the language
# detection model's table as JSON (scripts/lib/language-model.mjs). Builds into a folder of its
# own and then puts it in place, so nothing of an earlier build (a removed migration) is left and
# dist/ is never half written; one build at a time (a lock beside dist/). The earlier build is
# renamed aside before the new one is renamed in, and deleted after: a process starting meanwhile
# finds dist/ missing for the time between two renames, not for the whole deletion.
# Exit codes: 0 built; 1 the compiler failed (its output on stderr).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec 9>.dist.lock
flock 9
next=$(mktemp -d "$PWD/.dist-XXXXXX")
old=
trap 'rm -rf "$next" ${old:+"$old"}' EXIT
node_modules/.bin/tsc -p tsconfig.build.json --outDir "$next" >&2
node scripts/lib/language-model.mjs "$next/language-model"
chmod 755 "$next"
touch "$next/.built"
old=$(mktemp -d "$PWD/.dist-XXXXXX")
[ ! -e dist ] || mv -T dist "$old/dist"
mv -T "$next" dist
rm -rf "$old"
