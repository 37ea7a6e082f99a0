#!/usr/bin/env php
<?php
// Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
// Prints the write's id, and exits 0 only once the write survives a crash or power cut.
// Copy it into your program; it needs nothing beyond PHP 8.1's command line.

function spool_drop(string $spool, string $method, string $url, string $body): string
{
    $document = ['method' => $method, 'url' => $url, 'body' => $body,
                 'idempotency_key' => bin2hex(random_bytes(16))];
    $data = json_encode($document, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR) . "\n";
    $host = substr(preg_replace('/[^A-Za-z0-9.-]/', '', gethostname()), 0, 40) ?: 'host';
    // Unique: the time in nanoseconds, this process, a random part; sorts by time.
    $name = sprintf('%s.%d.%s.%s', sprintf('%.0f', microtime(true) * 1e6) . sprintf('%03d', hrtime()[1] % 1000),
                    getmypid(), bin2hex(random_bytes(4)), $host);
    $temporary = "$spool/tmp/$name";
    $file = @fopen($temporary, 'x'); // O_WRONLY | O_CREAT | O_EXCL
    if ($file === false) {
        throw new RuntimeException("$temporary: " . (error_get_last()['message'] ?? 'cannot create'));
    }
    chmod($temporary, 0600);
    $ok = fwrite($file, $data) === strlen($data) && fflush($file) && fsync($file); // on disk before new/
    fclose($file);
    if (!$ok) {
        unlink($temporary);
        throw new RuntimeException("$temporary: cannot write");
    }
    if (!rename($temporary, "$spool/new/$name")) { // no reader sees half a file
        throw new RuntimeException("$spool/new/$name: cannot rename");
    }
    $folder = fopen("$spool/new", 'r');
    if ($folder === false || !fsync($folder)) { // the name itself survives a power cut
        throw new RuntimeException("$spool/new: cannot sync");
    }
    fclose($folder);
    return $name;
}

if ($argc !== 5) {
    fwrite(STDERR, "usage: spool-drop.php SPOOL METHOD URL BODY\n");
    exit(64);
}
try {
    echo spool_drop($argv[1], $argv[2], $argv[3], $argv[4]), "\n";
} catch (Throwable $error) {
    fwrite(STDERR, 'spool-drop.php: ' . $error->getMessage() . "\n");
    exit(75);
}
