/// The nginx configuration the tests and spool-bench start nginx with: one worker, in the foreground, every
/// file under `directory`, an access log in `logFormat`, and one server block.
package enum NginxConfiguration {
    /// The text of nginx.conf.
    package static func text(directory: String, server: String, logFormat: String, logOptions: String = "",
                            http: String = "") -> String {
        """
        worker_processes 1;
        daemon off;
        master_process off;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log;
        events { worker_connections 4096; }
        http {
            log_format spool '\(logFormat)';
            access_log \(directory)/access.log spool \(logOptions);
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            \(http)
            server {
                \(server)
            }
        }
        """
    }
}
