import CCurl
import SpoolSystem
import SpoolTransport

/// A body streamed from an open file (an operation's payload): libcurl asks for it piece by piece through the
/// read callback, so that a payload of any size costs one buffer of libcurl's, and rewinds it through the seek
/// callback when it must send again. A file that ends before its length aborts the transfer: a request is
/// never sent short as if it were complete.
extension CurlTransfer {
    /// Sets the upload options for `file` on the easy handle.
    func configureUpload(_ file: BodyFile, _ context: UnsafeMutableRawPointer) {
        upload = file
        long(CCURLOPT_UPLOAD, 1)
        ccurl_setopt_offset(easy, Int32(CCURLOPT_INFILESIZE_LARGE), file.length)
        ccurl_setopt_callback(easy, Int32(CCURLOPT_READFUNCTION), CurlTransfer.onRead)
        pointer(CCURLOPT_READDATA, context)
        ccurl_setopt_seek_callback(easy, Int32(CCURLOPT_SEEKFUNCTION), CurlTransfer.onSeek)
        pointer(CCURLOPT_SEEKDATA, context)
    }

    /// Fills `buffer` with the next bytes of the body: how many, 0 at its end, or the abort code.
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        guard let upload else { return 0 }
        let remaining = upload.length - uploaded
        if remaining <= 0 { return 0 }
        let count = Int(min(Int64(capacity), remaining))
        do throws(Errno) {
            let read = try FileDescriptor(rawValue: upload.descriptor)
                .read(into: buffer, count: count, at: upload.offset + uploaded)
            guard read > 0 else {
                uploadProblem = "the file ended \(remaining) bytes before the payload's length of \(upload.length)"
                return Int(CCURL_READFUNC_ABORT)
            }
            uploaded += Int64(read)
            onProgress?(uploaded)
            return read
        } catch {
            uploadProblem = "\(error)"
            return Int(CCURL_READFUNC_ABORT)
        }
    }

    static let onRead: ccurl_data_callback = { buffer, size, count, context in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        return transfer.readBody(into: UnsafeMutableRawPointer(buffer!), capacity: size * count)
    }

    static let onSeek: ccurl_seek_callback = { context, offset, origin in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        // libcurl rewinds from the start (SEEK_SET) only.
        guard origin == 0, offset >= 0, offset <= transfer.upload?.length ?? 0 else {
            return Int32(CCURL_SEEKFUNC_FAIL)
        }
        transfer.uploaded = offset
        return Int32(CCURL_SEEKFUNC_OK)
    }
}
