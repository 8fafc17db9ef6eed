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
    // Nanoseconds a position for the stage timed since `t`.
    let report = |label: &str, t: Instant| {
        println!(
            "{label}{:6.1} ns",
            t.elapsed().as_nanos() as f64 / count as f64
        )
    };
    let rules = Rules::default().with_seeds(8).unwrap();
    let layout = Layout::new(6, n, 1).unwrap();
    let start = layout.per_side() / 3;
    let mut acc = 0u64;
    let t = Instant::now();
    let mut b = [0u8; MAX_BOARD];
    layout.unrank(start, &mut b);
    for _ in 0..count {
        acc += b[3] as u64;
        layout.next(&mut b);
    }
    report("next:          ", t);
    let t = Instant::now();
    layout.unrank(start, &mut b);
    for _ in 0..count {
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        acc += p.seeds(3) as u64;
        layout.next(&mut b);
    }
    report("+from_rows:    ", t);
    let t = Instant::now();
    layout.unrank(start, &mut b);
    let mut kids = 0u64;
    let mut caps = 0u64;
    for _ in 0..count {
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        p.for_each_child(&rules, |c| {
            kids += 1;
            caps += c.extra_turn as u64;
        });
        layout.next(&mut b);
    }
    println!(
        "+moves:        {:6.1} ns ({:.2} children, {:.2} captures a position)",
        t.elapsed().as_nanos() as f64 / count as f64,
        kids as f64 / count as f64,
        caps as f64 / count as f64
    );
    let t = Instant::now();
    layout.unrank(start, &mut b);
    for _ in 0..count {
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        p.for_each_child(&rules, |c| {
            let q = &c.position;
            let mut bb = [0u8; 12];
            for (i, x) in bb.iter_mut().enumerate() {
                *x = q.seeds((i + 6) % 12);
            }
            acc += layout.rank(&bb) & 1;
        });
        layout.next(&mut b);
    }
    report("+rank:         ", t);
    // Reading each quiet child's byte in a layer-sized array: at once, or gathered and
    // prefetched before reading.
    let work = vec![0u8; layout.count() as usize];
    let t = Instant::now();
    layout.unrank(start, &mut b);
    for _ in 0..count {
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        p.for_each_child(&rules, |c| {
            if !c.extra_turn {
                let q = &c.position;
                let mut bb = [0u8; 12];
                for (i, x) in bb.iter_mut().enumerate() {
                    *x = q.seeds((i + 6) % 12);
                }
                acc += work[layout.rank(&bb) as usize] as u64;
            }
        });
        layout.next(&mut b);
    }
    report("+read at once: ", t);
    let t = Instant::now();
    layout.unrank(start, &mut b);
    for _ in 0..count {
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        let mut idx = [0usize; 12];
        let mut k = 0;
        p.for_each_child(&rules, |c| {
            if !c.extra_turn {
                let q = &c.position;
                let mut bb = [0u8; 12];
                for (i, x) in bb.iter_mut().enumerate() {
                    *x = q.seeds((i + 6) % 12);
                }
                let j = layout.rank(&bb) as usize;
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
        for &j in &idx[..k] {
            acc += work[j] as u64;
        }
        layout.next(&mut b);
    }
    report("+prefetched:   ", t);
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
        let p = Position6::from_rows(&rules, &b[..6], &b[6..12], Side::South, [0, 0]).unwrap();
        p.for_each_child(&rules, |c| {
            if !c.extra_turn {
                let q = &c.position;
                let mut bb = [0u8; 12];
                for (i, x) in bb.iter_mut().enumerate() {
                    *x = q.seeds((i + 6) % 12);
                }
                all += 1;
                below += (layout.rank(&bb) < r) as u64;
            }
        });
    }
    println!(
        "quiet children below the parent: {:.1}%",
        100.0 * below as f64 / all as f64
    );
}
