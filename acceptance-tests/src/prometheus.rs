//! A Prometheus query endpoint on 127.0.0.1 for the burst scaler's sites, as the emulator's
//! KEDA simulation queries it: `GET /api/v1/query` answers a vector, when the request carries
//! what the server demands (a header such as `Authorization: Bearer …`). Otherwise 401, like a
//! Prometheus behind an authenticating proxy; or 403 `Missing Authentication Token` for the
//! Amazon Managed Prometheus stand-in, which demands a SigV4 signature. Every request is logged
//! (path and headers) so tests can see what KEDA would send. HTTP/1.0-style, one request per
//! connection, blocking, with read timeouts and a stop flag: nothing outlives the test.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server demands of a query.
#[derive(Debug, Clone)]
pub enum Demand {
    Nothing,
    /// This header, exactly (name case-insensitive).
    Header(String, String),
    /// An `Authorization: AWS4-HMAC-SHA256 …` signature (Amazon Managed Prometheus).
    SigV4,
}

/// One request as received: the path with its query, and the headers.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Prometheus {
    pub port: u16,
    demand: Arc<Mutex<Demand>>,
    log: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Prometheus {
    pub fn start(demand: Demand) -> Prometheus {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap_or_else(|e| panic!("bind 127.0.0.1: {e}"));
        listener
            .set_nonblocking(true)
            .unwrap_or_else(|e| panic!("nonblocking: {e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let demand = Arc::new(Mutex::new(demand));
        let log: Arc<Mutex<Vec<Received>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (d, l, s) = (demand.clone(), log.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => serve(stream, &d, &l),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(_) => break,
                }
            }
        });
        Prometheus {
            port,
            demand,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// The address KEDA's `serverAddress` takes.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Changes what the server demands from now on.
    pub fn demand(&self, d: Demand) {
        *self.demand.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = d;
    }

    pub fn received(&self) -> Vec<Received> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(stream: TcpStream, demand: &Mutex<Demand>, log: &Mutex<Vec<Received>>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let got = Received { path, headers };
    let demanded = demand.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let (code, body) = match &demanded {
        _ if !got.path.starts_with("/api/v1/query?") => ("404 Not Found", "404 page not found".to_owned()),
        Demand::Header(k, v) if got.header(k) != Some(v.as_str()) => ("401 Unauthorized", "Unauthorized".to_owned()),
        Demand::SigV4 if !got.header("Authorization").is_some_and(|a| a.starts_with("AWS4-HMAC-SHA256 ")) => (
            "403 Forbidden",
            "{\"message\":\"Missing Authentication Token\"}".to_owned(),
        ),
        _ => (
            "200 OK",
            "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1767225600,\"3\"]}]}}"
                .to_owned(),
        ),
    };
    log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(got);
    let mut out = &stream;
    let _ = write!(
        out,
        "HTTP/1.1 {code}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}
