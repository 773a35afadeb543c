//! Two pieces of work at once, on this machine's second core, and still done when no thread
//! can be started (the process is at its limit): then one after the other.

/// Runs `a` on a second thread while `b` runs on this one. A panic in `a` is raised here.
pub fn join<A: Send, B>(a: &(dyn Fn() -> A + Sync), b: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|s| match std::thread::Builder::new().spawn_scoped(s, a) {
        Ok(handle) => {
            let b = b();
            let a = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (a, b)
        }
        Err(_) => (a(), b()),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_run_and_keep_their_order() {
        let data: Vec<u64> = (1..=1000).collect();
        let (left, right) = data.split_at(500);
        let (a, b) = super::join(&|| left.iter().sum::<u64>(), || right.iter().sum::<u64>());
        assert_eq!((a, b), (125_250, 375_250));
    }
}
