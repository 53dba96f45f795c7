//! Compile time of a Go pattern under `cel::go::regexp` (run under
//! `/usr/bin/time -v` for its peak memory):
//!
//! ```sh
//! cargo run --release -p kcel-cel --example go_regexp_cost -- '\pL{1000}'
//! ```

use std::time::Instant;

fn main() {
    for pattern in std::env::args().skip(1) {
        let start = Instant::now();
        let result = cel::go::regexp::Regex::new(&pattern);
        let took = start.elapsed();
        let shown: String = pattern.chars().take(40).collect();
        match result {
            Ok(_) => println!("{took:?} ok {shown}"),
            Err(e) => println!(
                "{took:?} {}",
                e.to_string().chars().take(100).collect::<String>()
            ),
        }
    }
}
