import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readPrivateKey } from "../../src/config/private-key.js";

describe("readPrivateKey", () => {
  it("takes PRIVATE_KEY first, else the file, else nothing", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "key-"));
    try {
      const file = path.join(dir, "app.pem");
      await writeFile(file, "-----BEGIN PRIVATE KEY-----\nabc\n");
      expect(await readPrivateKey({ privateKey: "inline", privateKeyPath: file })).toBe("inline");
      expect(await readPrivateKey({ privateKeyPath: file })).toBe("-----BEGIN PRIVATE KEY-----\nabc\n");
      expect(await readPrivateKey({})).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names the variable and what to do when the file cannot be read", async () => {
    await expect(readPrivateKey({ privateKeyPath: "/nonexistent/app.pem" })).rejects.toThrow(
      /PRIVATE_KEY_PATH names a file that cannot be read \(ENOENT\).*set PRIVATE_KEY instead/,
    );
  });
});
