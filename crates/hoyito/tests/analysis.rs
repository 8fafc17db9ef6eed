//! The analysis's controls for fronts: a stop flag and a stream of answers so far.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hoyito::analysis::{analyse_watched, AnalysisOptions, Watchdog};
use hoyito::{Diagram, Rules};

#[test]
fn a_stopped_analysis_answers_with_what_it_has() {
    let rules = Rules::default();
    let stop = Arc::new(AtomicBool::new(false));
    let options = AnalysisOptions {
        exact: true,
        all_moves: true,
        no_book: true,
        no_tables: true,
        stop: Some(Arc::clone(&stop)),
        ..AnalysisOptions::default()
    };
    let updates = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&updates);
    let watchdog = Watchdog::quiet().with_updates(move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
    });
    // The 2x6 start with no book and no tables: hours to prove.
    let a = analyse_watched(&rules, None, &options, &watchdog).unwrap();
    stopper.join().unwrap();
    assert!(a.stopped, "{a:?}");
    assert!(!a.exact);
    assert!(a.bounds[0] < a.bounds[1]);
    assert!(updates.load(Ordering::Relaxed) >= 1);
}

#[test]
fn updates_end_with_the_answer() {
    let rules = Rules::default();
    let d: Diagram = "1,0,2,3,0,3/1,0,0,1,0,1 S".parse().unwrap();
    let last = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&last);
    let watchdog = Watchdog::quiet().with_updates(move |a| {
        *keep.lock().unwrap() = Some(a.clone());
    });
    let options = AnalysisOptions {
        depth: Some(4),
        all_moves: true,
        no_tables: true,
        ..AnalysisOptions::default()
    };
    let a = analyse_watched(&rules, Some(&d), &options, &watchdog).unwrap();
    let last = last.lock().unwrap().clone().expect("no update");
    assert_eq!(
        last.moves.as_ref().map(Vec::len),
        a.moves.as_ref().map(Vec::len)
    );
    assert_eq!(last.best, a.best);
    assert!(!a.stopped);
}

#[test]
fn a_time_limit_does_not_raise_the_fronts_flag() {
    // The searches stop themselves at their limits; the front's flag stays as the front
    // left it, and every move is still valued.
    let rules = Rules::default();
    let stop = Arc::new(AtomicBool::new(false));
    let d: Diagram = "6,6,2,7,1,6/1,6,6,6,0,1 N 0-0".parse().unwrap();
    let options = AnalysisOptions {
        exact: true,
        all_moves: true,
        time_ms: Some(300),
        stop: Some(Arc::clone(&stop)),
        ..AnalysisOptions::default()
    };
    let a = hoyito::analysis::analyse(&rules, Some(&d), &options).unwrap();
    assert!(!stop.load(Ordering::Relaxed));
    assert_eq!(a.moves.map(|m| m.len()), Some(5));
}
