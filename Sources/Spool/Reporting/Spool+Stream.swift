import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Listing a large spool for display in bounded memory: every operation's place in the order (24 bytes)
/// from one listing, then the names of one batch at a time from another, never all the documents at once.
extension Spool {
    /// One entry's place in the order, without its name.
    package struct InventoryKey: Comparable, Hashable {
        /// The enqueue order (microseconds since the epoch), as `order(_:_:)` reads it.
        package let order: Int64
        /// The entry's inode, by which a later listing finds its name again.
        package let inode: UInt64
        /// The index of the entry's folder among the folders listed.
        package let folder: UInt8

        /// By order, then inode and folder, so that every entry has one place.
        package static func < (a: InventoryKey, b: InventoryKey) -> Bool {
            (a.order, a.inode, a.folder) < (b.order, b.inode, b.folder)
        }
    }

    /// Operations read per later listing pass.
    package static let inventoryBatch = 65_536
    /// Operations kept, names included, during the first pass: the first lines print after one listing.
    package static let inventoryFirstBatch = 4096

    /// Every operation in `folders`, oldest first (enqueue order), handed to `body` as it is read; `body`
    /// returns false to stop (a reader that went away). Operations moved while listing are skipped, as `ls`
    /// would have missed them.
    package func forEachItem(
        _ folders: [Folder], maxSize: Int = Spool.defaultMaxDocumentSize, _ body: (QueueItem) -> Bool
    ) throws(Errno) {
        var keys: [InventoryKey] = []
        var first = InventoryHeap(capacity: Spool.inventoryFirstBatch)
        for (index, folder) in folders.enumerated() {
            try forEachRawEntryWithInode(in: folder) { raw, _, inode in
                guard raw.first != UInt8(ascii: "."), !isReason(folder, raw) else { return }
                let key = InventoryKey(order: order(folder, raw), inode: inode, folder: UInt8(index))
                keys.append(key)
                first.offer(key) { FileName(bytes: Array(raw)) }
            }
        }
        for (key, fileName) in first.sorted() {
            if let item = item(folders[Int(key.folder)], fileName, maxSize: maxSize), !body(item) { return }
        }
        // Sorted only now: `head` has its lines before this.
        keys.sort()
        var start = first.count
        while start < keys.count {
            let batch = keys[start..<min(start + Spool.inventoryBatch, keys.count)]
            var slots: [InventoryKey: Int] = [:]
            for (offset, key) in batch.enumerated() {
                slots[InventoryKey(order: 0, inode: key.inode, folder: key.folder)] = offset
            }
            var names = [FileName?](repeating: nil, count: batch.count)
            for index in Set(batch.map(\.folder)).sorted() {
                try forEachRawEntryWithInode(in: folders[Int(index)]) { raw, _, inode in
                    if let slot = slots[InventoryKey(order: 0, inode: inode, folder: index)] {
                        names[slot] = FileName(bytes: Array(raw))
                    }
                }
            }
            for (offset, name) in names.enumerated() {
                guard let name else { continue }
                if let item = item(folders[Int(batch[batch.startIndex + offset].folder)], name, maxSize: maxSize),
                    !body(item)
                {
                    return
                }
            }
            start = batch.endIndex
        }
    }

    /// Whether a raw name in `folder` is a filed operation's reason (`ID.why`), listed with its operation.
    package func isReason(_ folder: Folder, _ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard folder == .failed || folder == .conflict, raw.count > 4 else { return false }
        return Array(raw[(raw.count - 4)...]) == Array(".why".utf8)
    }

    /// An entry's enqueue order as `item` reads it: the name's stamp, a filed one's reason, else its time.
    package func order(_ folder: Folder, _ raw: UnsafeBufferPointer<UInt8>) -> Int64 {
        if folder == .new || folder == .cur, let stamp = QueueName.orderStamp(raw) { return stamp }
        let fileName = FileName(bytes: Array(raw))
        let name = QueueName(fileName)
        if folder == .failed || folder == .conflict,
            let order = reason(of: name?.id ?? fileName.escaped, in: folder)["order"].flatMap({ Int64($0) })
        {
            return order
        }
        return name?.state?.orderMicroseconds ?? (try? directory(folder).status(of: fileName).modifiedMicroseconds) ?? 0
    }
}

/// The `capacity` smallest keys seen, with their names: a max-heap, so that each offer costs a comparison
/// with the largest kept, and the name is made only for a key that goes in.
package struct InventoryHeap {
    /// The most keys kept.
    package let capacity: Int
    private(set) var entries: [(key: Spool.InventoryKey, name: FileName)] = []

    /// An empty heap that keeps at most `capacity` keys.
    package init(capacity: Int) { self.capacity = capacity }

    /// How many keys are kept now.
    package var count: Int { entries.count }

    /// Keeps `key` if it is among the `capacity` smallest seen, making its name only then.
    package mutating func offer(_ key: Spool.InventoryKey, name: () -> FileName) {
        if entries.count < capacity {
            entries.append((key, name()))
            var child = entries.count - 1
            while child > 0, entries[(child - 1) / 2].key < entries[child].key {
                entries.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        } else if let top = entries.first, key < top.key {
            entries[0] = (key, name())
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < entries.count, entries[largest].key < entries[left].key { largest = left }
                if right < entries.count, entries[largest].key < entries[right].key { largest = right }
                if largest == parent { break }
                entries.swapAt(parent, largest)
                parent = largest
            }
        }
    }

    /// The keys kept, smallest first.
    package func sorted() -> [(key: Spool.InventoryKey, name: FileName)] { entries.sorted { $0.key < $1.key } }
}
