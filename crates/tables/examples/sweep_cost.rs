//! Measures the parts of a sweep over a slice of a layer: stepping the index, building
//! positions, generating moves, ranking children. `cargo run --release --example sweep_cost -- 20`
use std::time::Instant;

use hoyito_rules::{Position6, Rules, Side};
use hoyito_tables::{Layout, MAX_BOARD};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let count: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let rules = Rules::default().with_seeds(8).unwrap();
    let layout = Layout::new(6, n, 1).unwrap();
    let start = layout.per_side() / 3;
    let mut acc = 0u64;
    let mut report = |label: &str, (ns, sum): (f64, u64)| {
        acc = acc.wrapping_add(sum);
        println!("{label}{ns:6.1} ns");
    };
    report(
        "next:          ",
        time(&layout, start, count, |b| b[3] as u64),
    );
    report(
        "+from_rows:    ",
        time(&layout, start, count, |b| {
            position(&rules, b).seeds(3) as u64
        }),
    );
    let (mut kids, mut caps) = (0u64, 0u64);
    let (ns, sum) = time(&layout, start, count, |b| {
        position(&rules, b).for_each_child(&rules, |c| {
            kids += 1;
            caps += c.extra_turn as u64;
        });
        0
    });
    report("+moves:        ", (ns, sum));
    println!(
        "                ({:.2} children, {:.2} captures a position)",
        kids as f64 / count as f64,
        caps as f64 / count as f64
    );
    report(
        "+rank:         ",
        time(&layout, start, count, |b| {
            let mut sum = 0;
            position(&rules, b).for_each_child(&rules, |c| {
                sum += mirrored_rank(&layout, &c.position) & 1;
            });
            sum
        }),
    );
    // Reading each quiet child's byte in a layer-sized array: at once, or gathered and
    // prefetched before reading.
    let work = vec![0u8; layout.count() as usize];
    report(
        "+read at once: ",
        time(&layout, start, count, |b| {
            let mut sum = 0;
            position(&rules, b).for_each_child(&rules, |c| {
                if !c.extra_turn {
                    sum += work[mirrored_rank(&layout, &c.position) as usize] as u64;
                }
            });
            sum
        }),
    );
    report(
        "+prefetched:   ",
        time(&layout, start, count, |b| {
            let mut idx = [0usize; 12];
            let mut k = 0;
            position(&rules, b).for_each_child(&rules, |c| {
                if !c.extra_turn {
                    let j = mirrored_rank(&layout, &c.position) as usize;
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: a prefetch is only a hint; it never faults.
                    unsafe {
                        core::arch::x86_64::_mm_prefetch(
                            work.as_ptr().add(j) as *const i8,
                            core::arch::x86_64::_MM_HINT_T0,
                        )
                    };
                    idx[k] = j;
                    k += 1;
                }
            });
            idx[..k].iter().map(|&j| work[j] as u64).sum()
        }),
    );
    println!("{acc}");
    order_stats(n, 200_000);
}

/// Share of quiet moves whose child has a smaller index than the parent (what decides how
/// far one Gauss–Seidel sweep carries a change).
#[allow(dead_code)]
pub fn order_stats(n: usize, count: u64) {
    let rules = Rules::default().with_seeds(8).unwrap();
    let layout = Layout::new(6, n, 1).unwrap();
    let mut b = [0u8; MAX_BOARD];
    let stride = layout.per_side() / count;
    let (mut below, mut all) = (0u64, 0u64);
    for i in 0..count {
        let r = i * stride;
        layout.unrank(r, &mut b);
        position(&rules, &b).for_each_child(&rules, |c| {
            if !c.extra_turn {
                all += 1;
                below += (mirrored_rank(&layout, &c.position) < r) as u64;
            }
        });
    }
    println!(
        "quiet children below the parent: {:.1}%",
        100.0 * below as f64 / all as f64
    );
}

/// Runs `stage` on `count` consecutive boards of `layout` from rank `start`, stepping the
/// index; returns the nanoseconds a position and what the stage summed (kept, so that
/// nothing is optimised away). Generic, so that the stage is inlined as in a sweep.
fn time(
    layout: &Layout,
    start: u64,
    count: u64,
    mut stage: impl FnMut(&[u8; MAX_BOARD]) -> u64,
) -> (f64, u64) {
    let mut b = [0u8; MAX_BOARD];
    layout.unrank(start, &mut b);
    let mut sum = 0u64;
    let t = Instant::now();
    for _ in 0..count {
        sum = sum.wrapping_add(stage(&b));
        layout.next(&mut b);
    }
    (t.elapsed().as_nanos() as f64 / count as f64, sum)
}

/// The position of a board of South to move.
fn position(rules: &Rules, b: &[u8; MAX_BOARD]) -> Position6 {
    Position6::from_rows(rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap()
}

/// The rank of a child (North to move) as the layer stores it: the board seen by North.
fn mirrored_rank(layout: &Layout, q: &Position6) -> u64 {
    let mut bb = [0u8; 12];
    for (i, x) in bb.iter_mut().enumerate() {
        *x = q.seeds((i + 6) % 12);
    }
    layout.rank(&bb)
}
