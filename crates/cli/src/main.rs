//! The `kcel` command line.

fn main() {
    println!("kcel");
}
