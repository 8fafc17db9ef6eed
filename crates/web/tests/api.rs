//! The JSON API through the router (no socket): answers, errors as 4xx JSON with the
//! library's message, the body limit, the embedded files only, the analysis stream (its
//! values, and one tab's new analysis stopping its previous one), and random inputs that
//! never give a 5xx.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use hoyito::analysis::{analyse, AnalysisOptions};
use hoyito::{Diagram, Rules};
use hoyito_web::{router, AppState, Options};
use http_body_util::BodyExt as _;
use proptest::prelude::*;
use serde_json::{json, Value};
use tower::ServiceExt as _;

fn app() -> Router {
    router(AppState::new(Options {
        analysis_ms: 2_000,
        engine_ms: 1_000,
        ..Options::default()
    }))
}

async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    body: impl Into<Body>,
) -> (StatusCode, Vec<u8>) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, bytes.to_vec())
}

async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    let (status, bytes) = send(app, "POST", uri, body.to_string()).await;
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{uri}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    (status, value)
}

fn error_of(v: &Value) -> &str {
    assert!(v["error"]["kind"].is_string(), "an error kind: {v}");
    v["error"]["message"].as_str().expect("an error message")
}

#[tokio::test]
async fn the_start_and_a_move() {
    let app = app();
    let (status, v) = post(&app, "/api/position", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["position"], "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0");
    assert_eq!(v["moves"].as_array().unwrap().len(), 6);
    assert_eq!(v["book"][0], json!({ "move": 1, "value": -28 }));
    let (status, v) = post(&app, "/api/play", json!({ "game": {}, "move": 1 })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["position"], "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
    let landings: Vec<u64> = v["last"]["laps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["landing"].as_u64().unwrap())
        .collect();
    assert_eq!(landings, [4, 9, 2, 8, 2]);
    assert_eq!(v["plies"][0]["token"], "S1");
}

#[tokio::test]
async fn bad_requests_are_4xx_with_the_message() {
    let app = app();
    let (status, v) = post(&app, "/api/play", json!({ "game": {}, "move": 9 })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("out of range"), "{v}");
    let (status, v) = post(&app, "/api/position", json!({ "start": "1,2/3 S" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("bad position"), "{v}");
    let (status, v) = post(&app, "/api/position", json!({ "rules": { "holes": 13 } })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("13"), "{v}");
    let (status, v) = post(&app, "/api/position", json!({ "colour": "red" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("unknown field"), "{v}");
    let (status, bytes) = send(&app, "POST", "/api/position", "{not json").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&bytes).contains("bad JSON"));
    let (status, v) = post(&app, "/api/engine", json!({ "game": {}, "level": "9" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("level"), "{v}");
    let (status, _) = send(&app, "GET", "/api/analysis?tab=a", Body::empty()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let app = app();
    let big = format!(
        "{{\"text\": \"{}\"}}",
        "x".repeat(hoyito_web::BODY_LIMIT + 1)
    );
    let (status, bytes) = send(&app, "POST", "/api/record/read", big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(error_of(&v).contains("over"), "{v}");
    // A body with no length given is cut at the limit too.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..hoyito_web::BODY_LIMIT / 1000 + 2)
        .map(|_| Ok(vec![b' '; 1000]))
        .collect();
    let stream = Body::from_stream(tokio_stream::iter(chunks));
    let (status, _) = send(&app, "POST", "/api/position", stream).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    // Every 4xx is JSON: a method a route does not take.
    let (status, bytes) = send(&app, "GET", "/api/play", Body::empty()).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(error_of(&v).contains("method"), "{v}");
}

#[tokio::test]
async fn only_the_embedded_files_are_served() {
    let app = app();
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let response = app
            .clone()
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let ct = response.headers()["content-type"].to_str().unwrap();
        assert!(ct.starts_with(kind), "{path}: {ct}");
    }
    for path in [
        "/../Cargo.toml",
        "/assets/app.js",
        "/%2e%2e/Cargo.toml",
        "/src/lib.rs",
        "/api/nothing",
        "/index.html/..",
    ] {
        let (status, _) = send(&app, "GET", path, Body::empty()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn records_are_written_and_read() {
    let app = app();
    let game = json!({ "moves": [1, 2, 1] });
    let (status, v) = post(
        &app,
        "/api/record/write",
        json!({ "game": game, "south": "Ana", "north": "Luis" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("S1 N2x4 N1"), "{text}");
    let (status, v) = post(&app, "/api/record/read", json!({ "text": text })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v[0]["game"]["moves"], json!([1, 2, 1]));
    assert_eq!(v[0]["south"], "Ana");
    let (status, v) = post(&app, "/api/record/read", json!({ "text": "S1 N9 *" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&v).contains("line 1"), "{v}");
    assert_eq!(v["error"]["kind"], "bad_record");
    // Any name reads back as written: a newline, quotes, a backslash, brackets.
    let (south, north) = ("Ana \"la\" Grande\nde Baní", "Luis \\ [N] ]\r");
    let (status, v) = post(
        &app,
        "/api/record/write",
        json!({ "game": game, "south": south, "north": north }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let text = v["text"].as_str().unwrap();
    let (status, v) = post(&app, "/api/record/read", json!({ "text": text })).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(
        (v[0]["south"].as_str(), v[0]["north"].as_str()),
        (Some(south), Some(north))
    );
}

#[tokio::test]
async fn the_engine_moves_and_the_book_answers() {
    let app = app();
    let (status, v) = post(
        &app,
        "/api/engine",
        json!({ "game": { "moves": [1] }, "level": "1" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["view"]["plies"].as_array().unwrap().len(), 2);
    let (status, v) = post(
        &app,
        "/api/engine",
        json!({ "game": {}, "level": "perfect" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["engine"]["move"], 1, "the book's best move");
    assert_eq!(v["engine"]["exact"], true);
    let (status, v) = post(&app, "/api/book", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v.as_array().unwrap().len(), 6);
}

/// The events of an analysis stream, read until `done` (or the deadline).
async fn events(app: &Router, tab: &str, game: Value) -> Vec<(String, Value)> {
    let uri = format!(
        "/api/analysis?tab={tab}&game={}",
        urlencode(&game.to_string())
    );
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let mut text = String::new();
    let read = async {
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.unwrap().into_data() {
                text.push_str(&String::from_utf8_lossy(&data));
                if text.contains("event: done") {
                    break;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), read)
        .await
        .expect("the stream ends");
    text.split("\n\n")
        .filter_map(|block| {
            let event = block.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((event.to_string(), serde_json::from_str(data).unwrap()))
        })
        .collect()
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_ends_with_the_proven_values_of_the_library() {
    // Time enough to build the small tables in memory (4 s at least) and prove.
    let app = router(AppState::new(Options {
        analysis_ms: 60_000,
        ..Options::default()
    }));
    let position = "1,2,0,3,1,1/1,0,2,0,0,1 S";
    let events = events(&app, "t1", json!({ "start": position })).await;
    assert_eq!(events.last().unwrap().0, "done");
    let last = &events
        .iter()
        .rev()
        .find(|(e, _)| e == "analysis")
        .unwrap()
        .1;
    let d: Diagram = position.parse().unwrap();
    let options = AnalysisOptions {
        exact: true,
        all_moves: true,
        no_tables: true,
        ..AnalysisOptions::default()
    };
    let a = analyse(&Rules::default(), Some(&d), &options).unwrap();
    let want: Vec<Value> = a
        .moves
        .unwrap()
        .iter()
        .map(|m| json!([m.mv, m.score, m.exact]))
        .collect();
    let got: Vec<Value> = last["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!([m["move"], m["score"], m["exact"]]))
        .collect();
    assert_eq!(got, want);
    // Estimates came first.
    assert_eq!(events[0].1["phase"], "estimate");
    // The start is answered from the book at once.
    let events = self::events(&app, "t2", json!({})).await;
    assert_eq!(events[0].1["phase"], "book");
    assert_eq!(events[0].1["moves"][0]["score"], -28);
    assert_eq!(events[0].1["outcome_south"], -28);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_s_new_analysis_stops_its_previous_one_and_moves_still_answer() {
    let state = AppState::new(Options {
        analysis_ms: 60_000,
        ..Options::default()
    });
    let app = router(state.clone());
    // The 2x12 start: far too large to prove; it would run its whole minute.
    let big = json!({ "rules": { "holes": 12 } });
    let first = tokio::spawn({
        let app = app.clone();
        let big = big.clone();
        async move { events(&app, "tab", big).await }
    });
    while state.analyses() == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Another tab's moves answer while it runs.
    let (status, _) = post(&app, "/api/play", json!({ "game": big, "move": 3 })).await;
    assert_eq!(status, StatusCode::OK);
    // The same tab's next analysis stops the first, whose stream then ends.
    let second = tokio::spawn({
        let app = app.clone();
        async move { events(&app, "tab", json!({})).await }
    });
    let first = tokio::time::timeout(Duration::from_secs(30), first)
        .await
        .expect("the first analysis stops")
        .unwrap();
    assert_eq!(first.last().unwrap().0, "done");
    let second = second.await.unwrap();
    assert_eq!(second[0].1["phase"], "book");
}

/// Text of the characters a position or record is made of, and some others.
fn texty() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[0-9,/SNx \\[\\]\"a-z{}~*-]{0,40}").unwrap()
}

fn spec() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("hoyito2"), Just("hoyito3"), Just("other")],
        0usize..15,
        0usize..10,
        prop_oneof![Just("capturer"), Just("S"), Just("N"), Just("?")],
        proptest::option::of(texty()),
        proptest::collection::vec(0u8..15, 0..12),
        proptest::option::of(0u32..4),
    )
        .prop_map(|(variant, holes, seeds, last_four, start, moves, rounds)| {
            let mut v = json!({
                "rules": { "variant": variant, "holes": holes, "seeds": seeds, "last_four": last_four },
                "moves": moves,
            });
            if let Some(s) = start {
                v["start"] = json!(s);
            }
            if let Some(r) = rounds {
                v["rounds"] = json!(r);
            }
            v
        })
}

fn no_5xx(status: StatusCode, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        status.is_success() || status.is_client_error(),
        "{what}: {status}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random specs, moves, records and raw bytes: every answer is a 2xx or a 4xx.
    #[test]
    fn random_inputs_never_give_a_5xx(
        game in spec(),
        mv in 0u8..15,
        text in texty(),
        raw in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let app = app();
            let (s, _) = send(&app, "POST", "/api/position", game.to_string()).await;
            no_5xx(s, "position")?;
            let (s, _) = send(&app, "POST", "/api/play", json!({ "game": game, "move": mv }).to_string()).await;
            no_5xx(s, "play")?;
            let (s, _) = send(&app, "POST", "/api/record/write", json!({ "game": game }).to_string()).await;
            no_5xx(s, "record/write")?;
            let (s, _) = send(&app, "POST", "/api/record/read", json!({ "text": text }).to_string()).await;
            no_5xx(s, "record/read")?;
            for path in ["/api/position", "/api/play", "/api/engine", "/api/book", "/api/record/read"] {
                let (s, _) = send(&app, "POST", path, raw.clone()).await;
                no_5xx(s, path)?;
            }
            // The stream's status comes before any analysis; dropping it stops the analysis.
            let uri = format!("/api/analysis?tab=p&game={}", urlencode(&game.to_string()));
            let response = app.clone().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
            no_5xx(response.status(), "analysis")?;
            Ok::<(), TestCaseError>(())
        })?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_stream_stops_its_analysis() {
    let state = AppState::new(Options {
        analysis_ms: 60_000,
        ..Options::default()
    });
    let app = router(state.clone());
    let game = json!({ "rules": { "holes": 12 } }).to_string();
    let uri = format!("/api/analysis?tab=closing&game={}", urlencode(&game));
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let mut body = response.into_body();
    // The first answer so far, then the stream is dropped, as a browser closes it.
    let first = body.frame().await.unwrap().unwrap();
    assert!(first.is_data());
    drop(body);
    tokio::time::timeout(Duration::from_secs(30), async {
        while state.analyses() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the analysis stops once its stream is closed");
}
