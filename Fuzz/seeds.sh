#!/bin/sh
# Fuzz/seeds.sh TARGET DIRECTORY: copies the seed inputs of TARGET into DIRECTORY (a libFuzzer corpus):
# the hostile-input corpus of the tests and real examples from the man pages and the README.
set -e
target=$1
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
n=0
seed() { n=$((n + 1)); printf '%s' "$1" >"$out/seed-$n"; }
# What once crashed the target (Tests/Corpus/fuzz/TARGET/) starts every run.
cp "$root/Tests/Corpus/fuzz/$target/"* "$out"/ 2>/dev/null || true
case $target in
document)
    cp "$root"/Tests/Corpus/* "$out"/ 2>/dev/null || true
    rm -f "$out/expected.tsv"
    seed '{"method":"PUT","url":"https://api.example.com/notes/7","headers":{"Content-Type":"application/json"},"body":{"title":"Groceries"},"if_match":"\"v3\"","idempotency_key":"5b0c6f1e-7d2a-4c1b-9e55-0a6f3f8d2c11","x-app":{"user":"ada"}}'
    seed '{"method":"POST","url":"http://h:8080/a?b=c","body_base64":"aGVsbG8=","key":"k","depends_on":["1764412345.M1P2Q3R4.h"],"coalesce":true,"not_before":"2026-12-02T10:00:00Z","expires_at":"2026-12-03T10:00:00+01:00","max_attempts":5,"priority":-3,"auth":"prod"}'
    seed '{"handler":"thumbnail","args":["--size","64"],"body":"z"}'
    seed '{"method":"PATCH","url":"https://h/doc","merge":true,"creates":true,"body":{"a":{"b":null},"c":[1,2.50,-0e3]}}'
    seed '{"method":"PUT","url":"https://h/p","payload":true}
raw bytes'
    ;;
names)
    seed '1764412345.M123456P42Q1R00ff00ff.h:o=1764412345123456,k=0000000000000abc,a=3,t=1764412400,e=503@h.example,42,99,1764412345'
    seed '1764412345.M123456P42Q1R00ff00ff.h:o=1764412345123456,k=0000000000000abc,h=0000beef,p=-3,s=held'
    seed '1764412345.M1P2Q3R4.h:o=1,k=0000000000000001'
    seed 'job.json'
    ;;
config)
    seed '# spool.conf
concurrency = 8
[https://api.example.com]
rate = 600/m
burst = 10
max-concurrency = 4
ca-file = /etc/ssl/certs/ca-certificates.crt
proxy = http://proxy:3128
http-version = 2
warn-after = 1h'
    ;;
headers)
    for value in '120' 'Sun, 06 Nov 1994 08:49:37 GMT' '10;w=1' '"default";q=10;w=1' '"default";r=0;t=5' \
        'limit=10, remaining=0, reset=5' '1800000100' '0' '-1'; do
        seed "$value"
    done
    ;;
head)
    seed "$(printf 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 412 Precondition Failed\r\nETag: "v7"\r\nContent-Type: application/json\r\nRetry-After: 120\r\n\r\n{"title":"theirs"}')"
    seed "$(printf 'HTTP/2 429 \r\nratelimit-policy: "default";q=10;w=1\r\nratelimit: "default";r=0;t=5\r\nx-ratelimit-remaining: 0\r\nx-ratelimit-reset: 1800000100\r\n\r\n')"
    seed "$(printf 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Folded: a\r\n  b\r\nETag : W/"x"\r\n\r\nbody')"
    seed "$(printf 'HTTP/1.1 301 Moved Permanently\r\nLocation: https://h/elsewhere\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n')"
    ;;
auth)
    seed "$(printf '# the API token\nAuthorization: Bearer 0123456789abcdef\nX-Api-Key: k\r\ncacert = /etc/ssl/certs/ca-certificates.crt\ncert = /etc/spool/client.pem\n')"
    seed "$(printf 'Authorization: Basic YWRhOnNlY3JldA==\n\n# end\n')"
    ;;
arguments)
    printf 'PUT\000https://h/x\000--body\000x\000--key\000k' >"$out/seed-args-1"
    printf -- '--spool\000/tmp/s\000--once\000--concurrency\0008\000--max-rate\0001M' >"$out/seed-args-2"
    printf 'list\000--older-than\0001h\000--json' >"$out/seed-args-3"
    printf -- '-X\000PUT\000-H\000A: b\000-d\000@-\000https://h/x' >"$out/seed-args-4"
    ;;
*)
    echo "Fuzz/seeds.sh: error: unknown target $target (document, names, config, headers, head, auth, arguments)" >&2
    exit 64
    ;;
esac
