import Foundation

/// A private CA made with openssl for this test (or benchmark) run, and what it signed: a server certificate for
/// 127.0.0.1, ::1 and localhost, and a client certificate for mutual TLS. Nothing outside the run
/// trusts it, so without `--cacert` a server using it cannot be verified.
package struct TestCertificates: Sendable {
    /// Where the files are.
    package let directory: String
    /// The CA certificate, to trust.
    package var caFile: String { directory + "/ca.pem" }
    /// The server certificate and its key.
    package var serverCertificate: String { directory + "/server.pem" }
    package var serverKey: String { directory + "/server.key" }
    /// The client certificate and its key, for mutual TLS.
    package var clientCertificate: String { directory + "/client.pem" }
    package var clientKey: String { directory + "/client.key" }

    /// Made once per test process; nil, with the reason printed, when openssl is missing.
    package static let shared: TestCertificates? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            print("skipped: TLS tests need /usr/bin/openssl (Debian's openssl)")
            return nil
        }
        let directory = NSTemporaryDirectory() + "spool-test-tls-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd "\(directory)"
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=spool test CA" 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\\n' > server.ext
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1" 2>/dev/null
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
            printf 'extendedKeyUsage=clientAuth\\n' > client.ext
            openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj "/CN=spool client" 2>/dev/null
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 -extfile client.ext 2>/dev/null
            chmod 600 client.key server.key
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try? process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            print("skipped: openssl could not make the test certificates")
            return nil
        }
        return TestCertificates(directory: directory)
    }()
}
