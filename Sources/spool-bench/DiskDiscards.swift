import Glibc

/// How many discard requests the block device under a directory has completed, from its counters in
/// `/sys/dev/block/MAJOR:MINOR/stat` (the twelfth field; Linux 4.18 and later).
///
/// Why the bench reads it: ext4 without a journal, mounted with `discard`, discards a file's blocks inside its
/// `unlink` and waits for the disk. The discard's completion interrupt lands on one CPU and, on a kernel without
/// IRQ time accounting, is charged to whatever thread runs there. A lone loop (the file floor) sleeps through its
/// own discards and is charged nothing; spool's sending thread keeps working while its removal threads wait, and
/// is charged for each of them whenever the scheduler has put it on that CPU. The CPU row then moves between two
/// levels from run to run, and this count tells the reader whether their disk does that.
struct DiskDiscards {
    /// The counter file, or nil when the device has none (a network or FUSE file system, an old kernel).
    let counterPath: String?

    /// The device holding `directory`.
    init(under directory: String) {
        var status = stat()
        guard stat(directory, &status) == 0 else {
            counterPath = nil
            return
        }
        // glibc's encoding of dev_t (gnu_dev_major / gnu_dev_minor, macros Swift cannot import).
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let path = "/sys/dev/block/\(major):\(minor)/stat"
        counterPath = access(path, R_OK) == 0 ? path : nil
    }

    /// Discards completed so far, or nil when they cannot be read.
    func completed() -> Int? {
        guard let counterPath else { return nil }
        let fields = readText(counterPath).split(whereSeparator: { $0 == " " || $0 == "\n" })
        return fields.count > 11 ? Int(fields[11]) : nil
    }
}
