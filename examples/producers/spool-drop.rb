#!/usr/bin/env ruby
# Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
# Prints the write's id, and exits 0 only once the write survives a crash or power cut.
# Copy it into your program; it needs nothing beyond Ruby's standard library.
require 'json'
require 'securerandom'
require 'socket'

def drop(spool, method, url, body)
  document = { 'method' => method, 'url' => url, 'body' => body, 'idempotency_key' => SecureRandom.hex(16) }
  data = JSON.generate(document) + "\n"
  host = Socket.gethostname.gsub(/[^A-Za-z0-9.-]/, '')[0, 40]
  host = 'host' if host.empty?
  # Unique: the time in nanoseconds, this process, a random part; sorts by time.
  name = format('%d.%d.%s.%s', Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond), Process.pid,
                SecureRandom.hex(4), host)
  temporary = File.join(spool, 'tmp', name)
  file = File.open(temporary, File::WRONLY | File::CREAT | File::EXCL, 0o600) # never another's file
  begin
    file.write(data)
    file.fsync # the document on disk before its name appears in new/
    file.close
  rescue StandardError
    file.close unless file.closed?
    File.unlink(temporary)
    raise
  end
  File.rename(temporary, File.join(spool, 'new', name)) # no reader sees half a file
  File.open(File.join(spool, 'new'), File::RDONLY) { |new| new.fsync } # the name itself survives a power cut
  name
end

if ARGV.length != 4
  warn 'usage: spool-drop.rb SPOOL METHOD URL BODY'
  exit 64
end
begin
  puts drop(*ARGV)
rescue SystemCallError => e
  warn "spool-drop.rb: #{e.message}"
  exit 75
end
