#!/usr/bin/env node
// Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
// Prints the write's id, and exits 0 only once the write survives a crash or power cut.
// Copy it into your program; it needs nothing beyond Node.js itself.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const startNanoseconds = BigInt(Date.now()) * 1000000n - process.hrtime.bigint();

function drop(spool, method, url, body) {
  const document = { method, url, body, idempotency_key: crypto.randomBytes(16).toString('hex') };
  const data = Buffer.from(JSON.stringify(document) + '\n', 'utf8');
  const host = os.hostname().replace(/[^A-Za-z0-9.-]/g, '').slice(0, 40) || 'host';
  // Unique: the time in nanoseconds (the wall clock at start, advanced by the monotonic one, so that two
  // drops of one process sort in their order), this process, a random part.
  const nanoseconds = startNanoseconds + process.hrtime.bigint();
  const name = `${nanoseconds}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.${host}`;
  const temporary = path.join(spool, 'tmp', name);
  const file = fs.openSync(temporary, 'wx', 0o600); // O_WRONLY | O_CREAT | O_EXCL
  try {
    for (let done = 0; done < data.length;) done += fs.writeSync(file, data, done);
    fs.fsyncSync(file); // the document on disk before its name appears in new/
  } catch (error) {
    fs.closeSync(file);
    fs.unlinkSync(temporary);
    throw error;
  }
  fs.closeSync(file);
  fs.renameSync(temporary, path.join(spool, 'new', name)); // no reader sees half a file
  const folder = fs.openSync(path.join(spool, 'new'), 'r');
  try {
    fs.fsyncSync(folder); // the name itself survives a power cut
  } finally {
    fs.closeSync(folder);
  }
  return name;
}

if (process.argv.length !== 6) {
  process.stderr.write('usage: spool-drop.js SPOOL METHOD URL BODY\n');
  process.exit(64);
}
try {
  process.stdout.write(drop(...process.argv.slice(2)) + '\n');
} catch (error) {
  process.stderr.write(`spool-drop.js: ${error.message}\n`);
  process.exit(75);
}
