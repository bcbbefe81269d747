/**
 * setupFiles of the unit tier (jest.unit.config.js): a test there may start no process and open no socket. Each
 * door is replaced by one that throws, naming the rule, so a test that needs them is moved to the full suite by
 * naming its helper (test/helpers/test-tiers.js) instead of slowing the fast tier down. jest's own esbuild transform
 * (a child process it keeps) is let through. nock answers HTTP without a socket, so nock-based tests stay here.
 */
import childProcess from "node:child_process";
import net from "node:net";

const refuse = (what) => () => {
  throw new Error(
    `the unit tier (npm run test:unit) starts no process and opens no socket, but this test tried: ${what}. ` +
      "Use a helper named in test/helpers/test-tiers.js (or add its marker there) so the file runs in npm test only.",
  );
};

for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "fork"]) {
  const real = childProcess[name];
  childProcess[name] = function guarded(command, ...rest) {
    if (typeof command === "string" && /[\\/]esbuild(?:[\\/]|$)|[\\/]@esbuild[\\/]/.test(command))
      return real.call(this, command, ...rest);
    return refuse(`child_process.${name}(${JSON.stringify(String(command)).slice(0, 80)})`)();
  };
}
const realExecFileSync = childProcess.execFileSync;
childProcess.execFileSync = function guarded(command, ...rest) {
  if (typeof command === "string" && /[\\/]esbuild(?:[\\/]|$)|[\\/]@esbuild[\\/]/.test(command))
    return realExecFileSync.call(this, command, ...rest);
  return refuse(`child_process.execFileSync(${JSON.stringify(String(command)).slice(0, 80)})`)();
};
net.Server.prototype.listen = refuse("a server's listen()");
net.Socket.prototype.connect = refuse("a socket's connect()");
