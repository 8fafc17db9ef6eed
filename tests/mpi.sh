#!/usr/bin/env bash
# The table build over MPI (the `mpi` feature) against the build of one process: for 2x6
# Hoyito II up to 12 seeds and for 2x4 Hoyito III with 3 seeds a hole up to 16 seeds, the
# layers built by `mpirun -np 1`, `-np 2` and `-np 3`, with sweeps only (`--method sweeps`)
# and with rounds (`--moves-at-sweep 2`, and again with no range copied whole and the
# answers sent in steps of 1 KiB: `--copy-whole-from 0 --answer-step-kib 1`), must have the
# same payload
# checksums as those of `solve tables build --method sweeps` without the feature. Then a job
# stopped after its smaller layers resumes from them under another number of processes, and
# jobs stopped in the middle of a layer, in its sweeps and in its rounds, resume from their
# checkpoints to the same tables. Needs Open MPI (Debian: openmpi-bin libopenmpi-dev
# libclang-dev); `.ci/run` runs it when `mpirun` is there or MPI_TESTS=1.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v mpirun >/dev/null; then
    echo "tests/mpi.sh: mpirun not found; install Open MPI (openmpi-bin libopenmpi-dev libclang-dev)" >&2
    exit 1
fi
# Shared-memory transport without the kernel's single-copy support (containers lack it).
export OMPI_MCA_btl_vader_single_copy_mechanism=none

cargo build --release -p hoyito-solver
cargo build --release -p hoyito-solver --features mpi --target-dir target/mpi
# The unit tests of the distributed build (the asks' forms, checkpoints, ranges).
cargo test --release -p hoyito-tables --features mpi --target-dir target/mpi --lib build::
solve=target/release/solve
solve_mpi=target/mpi/release/solve
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_mpi() {
    local np=$1
    shift
    mpirun --allow-run-as-root --oversubscribe -np "$np" "$solve_mpi" "$@"
}

# Each layer's seeds and payload checksum, one a line.
sums() {
    "$solve" tables --dir "$@" info --json |
        grep -o '"payload_checksum":"[0-9a-f]*"\|"seeds":[0-9]*' | paste - - | sort
}

# Stops the job `$1` (an mpirun) and waits until every process it started has ended too:
# a rank still running after mpirun is gone could write into the folder the resumed build
# is about to use.
stop_job() {
    kill "$1"
    wait "$1" || true
    for _ in $(seq 600); do
        pgrep -f "$solve_mpi tables --dir $2 " >/dev/null || return 0
        sleep 0.05
    done
    pkill -9 -f "$solve_mpi tables --dir $2 " || true
}

failed=0
check() {
    local name=$1 max=$2
    shift 2
    local rules=("$@")
    "$solve" tables --dir "$tmp/$name-one" "${rules[@]}" build --max-seeds "$max" --method sweeps --quiet >/dev/null
    local want
    want=$(sums "$tmp/$name-one" "${rules[@]}")
    if [ "$(wc -l <<<"$want")" -lt 2 ]; then
        echo "FAIL $name: the build of one process made fewer than 2 layers" >&2
        failed=1
    fi
    for np in 1 2 3; do
        for how in sweeps rounds copying-what-is-read; do
            local d="$tmp/$name-$np-$how" flags=(--method sweeps)
            [ "$how" == rounds ] && flags=(--moves-at-sweep 2)
            # No range copied whole: every read of another range goes through the copy's map;
            # and the answers of each sweep in steps of 1 KiB, so in many steps.
            [ "$how" == copying-what-is-read ] && flags=(--moves-at-sweep 2 --copy-whole-from 0 --answer-step-kib 1)
            run_mpi "$np" tables --dir "$d" "${rules[@]}" build --max-seeds "$max" "${flags[@]}" --quiet >/dev/null
            if [ "$(sums "$d" "${rules[@]}")" == "$want" ]; then
                echo "ok   $name, $np processes, $how: $(wc -l <<<"$want") layers equal" >&2
            else
                echo "FAIL $name, $np processes, $how: payloads differ" >&2
                diff <(echo "$want") <(sums "$d" "${rules[@]}") >&2 || true
                failed=1
            fi
        done
    done
}

check 2x6 12
check 2x4 16 --holes 4 --seeds 3 --variant hoyito3

# A build stopped after layer 8, resumed under 3 processes: layer 8 kept, the rest built.
run_mpi 2 tables --dir "$tmp/resume" build --max-seeds 8 --quiet >/dev/null
out=$(run_mpi 3 tables --dir "$tmp/resume" --json build --max-seeds 12)
if grep '"seeds":8,' <<<"$out" | grep -q '"reused":true' && [ "$(sums "$tmp/resume")" == "$(sums "$tmp/2x6-one")" ]; then
    echo "ok   resumed build: layer 8 kept, payloads equal" >&2
else
    echo "FAIL resumed build" >&2
    echo "$out" >&2
    failed=1
fi

# A job stopped in the middle of layer 12, in its sweeps, resumes from its checkpoints to the
# same tables.
dir="$tmp/stopped"
run_mpi 2 tables --dir "$dir" build --max-seeds 8 --quiet >/dev/null
mpirun --allow-run-as-root --oversubscribe -np 2 "$solve_mpi" tables --dir "$dir" build --max-seeds 12 \
    --method sweeps --quiet >/dev/null &
job=$!
for _ in $(seq 3000); do
    if compgen -G "$dir/*/layer-12.hyt.mpi-1-of-2" >/dev/null; then break; fi
    sleep 0.1
done
stop_job "$job" "$dir"
if compgen -G "$dir/*/layer-12.hyt.mpi-*-of-2" >/dev/null && ! compgen -G "$dir/*/layer-12.hyt" >/dev/null; then
    out=$(run_mpi 2 tables --dir "$dir" build --max-seeds 12 --method sweeps 2>&1 >/dev/null)
    if grep -q "resumed from the checkpoints of step" <<<"$out" &&
        [ "$(sums "$dir")" == "$(sums "$tmp/2x6-one")" ] &&
        ! compgen -G "$dir/*/layer-12.hyt.mpi-*" >/dev/null; then
        echo "ok   stopped build: resumed from its checkpoints, payloads equal, checkpoints removed" >&2
    else
        echo "FAIL stopped build: $out" >&2
        failed=1
    fi
else
    echo "FAIL stopped build: no checkpoint of layer 12 while it was built" >&2
    failed=1
fi

# A job stopped in the rounds of layer 16 (saving after every round) resumes from the
# checkpoints of a round to the same tables as a build of one process.
"$solve" tables --dir "$tmp/one16" build --max-seeds 16 --quiet >/dev/null
dir="$tmp/stopped-rounds"
run_mpi 2 tables --dir "$dir" build --max-seeds 12 --quiet >/dev/null
mpirun --allow-run-as-root --oversubscribe -np 2 "$solve_mpi" tables --dir "$dir" build --max-seeds 16 \
    --moves-at-sweep 2 --checkpoint-every 0 --quiet >/dev/null &
job=$!
# The step a checkpoint was saved after (its header's sixth field): sweeps, then rounds.
step() { od -An -t u8 -j 40 -N 8 "$1" 2>/dev/null | tr -d ' '; }
saved=""
seen=0
for _ in $(seq 6000); do
    saved=$(compgen -G "$dir/*/layer-16.hyt.mpi-1-of-2" || true)
    seen=$(step "$saved" || true)
    if [ -n "$saved" ] && [ "$seen" -ge 5 ] 2>/dev/null; then break; fi
    sleep 0.05
done
stop_job "$job" "$dir"
if [ -n "$saved" ] && ! compgen -G "$dir/*/layer-16.hyt" >/dev/null; then
    out=$(run_mpi 2 tables --dir "$dir" build --max-seeds 16 --moves-at-sweep 2 2>&1 >/dev/null)
    # The job goes on for an unknown number of rounds between the checkpoint seen and its
    # stop, and a checkpoint is only ever replaced by a later one: the build resumes from
    # that step or a later one. A save cut short by the stop leaves a temporary file,
    # which the resumed build removes with the checkpoints.
    resumed=$(grep -o "resumed from the checkpoints of step [0-9]*" <<<"$out" | grep -o "[0-9]*$" || true)
    if [ -n "$resumed" ] && [ "$resumed" -ge "$seen" ] &&
        [ "$(sums "$dir")" == "$(sums "$tmp/one16")" ] &&
        ! compgen -G "$dir/*/layer-16.hyt.m*" >/dev/null; then
        echo "ok   build stopped in rounds: resumed from a round's checkpoints, payloads equal, checkpoints and moves removed" >&2
    else
        # Which of the three failed: the resume, the payloads, or files left behind.
        echo "FAIL build stopped in rounds: $out" >&2
        echo "     resumed at step ${resumed:-none}, a checkpoint of step $seen seen before the stop" >&2
        echo "     payloads: $(sums "$dir") against $(sums "$tmp/one16")" >&2
        echo "     left: $(compgen -G "$dir/*/layer-16.hyt.*" | tr '\n' ' ')" >&2
        failed=1
    fi
else
    echo "FAIL build stopped in rounds: no checkpoint of a round of layer 16 while it was built" >&2
    failed=1
fi

exit "$failed"
