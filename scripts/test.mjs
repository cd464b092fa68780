// npm test: typecheck, lint, unit + API tests (vitest), build, end-to-end tests (Playwright, Debian Chromium).
// Every stage runs even if an earlier one failed, so one run shows everything; the exit code is non-zero on any failure.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDependencies, run } from './ensure-deps.mjs';

await ensureDependencies();
const reports = mkdtempSync(join(tmpdir(), 'office-test-'));
const vitestReport = join(reports, 'vitest.json');
const playwrightReport = join(reports, 'playwright.json');

/** Runs a command with its output held back, so two stages can run at once without mixing their lines. */
function runHeld(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(output) }));
  });
}

/** Runs a command with its output shown as it comes and kept, for the summary to quote. */
function runShown(command, args) {
  return new Promise((resolve) => {
    // Colours as if the command wrote to this terminal itself.
    const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env;
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const output = [];
    const show = (stream) => (chunk) => {
      stream.write(chunk);
      output.push(chunk);
    };
    child.stdout.on('data', show(process.stdout));
    child.stderr.on('data', show(process.stderr));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(output).toString() }));
  });
}

/**
 * What made vitest fail when no test did (an unhandled error of a test's server, a global teardown's): its lines
 * from the first report of one, or its last lines. The summary quotes them, since a CI log may keep only its tail.
 */
function vitestFailureOutsideTests(output) {
  // eslint-disable-next-line no-control-regex -- the colours of the terminal's escape sequences
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const first = lines.findIndex((line) => /Unhandled (Error|Rejection)/.test(line));
  return (first === -1 ? lines.slice(-40) : lines.slice(first, first + 60)).join('\n');
}

// Typecheck and lint each keep one core busy for a minute or two; side by side they take the longer one's time.
const checks = [
  ['typecheck', ['run', 'typecheck', '--silent']],
  ['lint', ['run', 'lint', '--silent']],
];
const checkResults = await Promise.all(checks.map(([, args]) => runHeld('npm', args)));

let vitestOutput = '';
const stages = [
  [
    'unit and API tests',
    async () => {
      const vitestRun = await runShown('npx', [
        'vitest',
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${vitestReport}`,
      ]);
      vitestOutput = vitestRun.output;
      return vitestRun.code;
    },
  ],
  ['build', () => run('npm', ['run', 'build', '--silent'])],
  [
    'end-to-end tests',
    () => run('npx', ['playwright', 'test'], { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport }),
  ],
];

const failed = [];
checks.forEach(([name], index) => {
  const { code, output } = checkResults[index];
  console.log(`\n=== ${name} ===`);
  process.stdout.write(output);
  if (code !== 0) failed.push(name);
});
for (const [name, stage] of stages) {
  console.log(`\n=== ${name} ===`);
  if (name === 'end-to-end tests' && failed.includes('build')) {
    failed.push(name);
    continue;
  }
  if ((await stage()) !== 0) failed.push(name);
}

const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);
const vitest = readJson(vitestReport);
const playwright = readJson(playwrightReport);
const unitPassed = vitest?.numPassedTests ?? 0;
const unitFailed = vitest?.numFailedTests ?? 0;
const e2ePassed = (playwright?.stats?.expected ?? 0) + (playwright?.stats?.flaky ?? 0);
const e2eFailed = playwright?.stats?.unexpected ?? 0;
const e2eSkipped = playwright?.stats?.skipped ?? 0;
// Failures outside any test: the global teardown's (e.g. a process warning of the server during the run).
const e2eErrors = playwright?.errors?.length ?? 0;

console.log('\n=== summary ===');
console.log(`vitest: ${unitPassed} passed, ${unitFailed} failed`);
console.log(
  `playwright: ${e2ePassed} passed, ${e2eFailed} failed, ${e2eSkipped} skipped` +
    (e2eErrors ? `, ${e2eErrors} error${e2eErrors === 1 ? '' : 's'} outside tests` : ''),
);
if (failed.length) console.log(`failed stages: ${failed.join(', ')}`);
const vitestFailedOutsideTests = failed.includes('unit and API tests') && unitFailed === 0;
if (vitestFailedOutsideTests) {
  console.log(`vitest failed with no failed test; what it said:\n${vitestFailureOutsideTests(vitestOutput)}`);
}
// Stages without a test count of their own (typecheck, lint, build) count as one failure each, and so does vitest
// failing outside its tests.
const stageFailures = failed.filter((name) => !name.endsWith('tests')).length + (vitestFailedOutsideTests ? 1 : 0);
console.log(`Total: ${unitPassed + e2ePassed} passed, ${unitFailed + e2eFailed + e2eErrors + stageFailures} failed`);
process.exit(failed.length ? 1 : 0);
