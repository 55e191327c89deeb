import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Throwaway certificates for the Teller fake's mTLS, made with the openssl
 * CLI in a temporary directory at test setup (no private key is committed):
 * a test CA, the server's certificate for 127.0.0.1/localhost, the
 * application's client certificate, and a client certificate from another CA.
 */

export interface TestPki {
  dir: string;
  /** File paths (Coffer takes TELLER_CERT/TELLER_KEY as paths or PEM). */
  caCertPath: string;
  clientCertPath: string;
  clientKeyPath: string;
  /** PEM text. */
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  strangerCert: string;
  strangerKey: string;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

function issue(dir: string, name: string, ca: string, subject: string, ext: string): void {
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`]);
  openssl(dir, ["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`]);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    "x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`, "-CAcreateserial",
    "-days", "2", "-sha256", "-extfile", `${name}.ext`, "-out", `${name}.crt`,
  ]); // prettier-ignore
}

function authority(dir: string, name: string, subject: string): void {
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`]);
  openssl(dir, [
    "req", "-x509", "-new", "-key", `${name}.key`, "-subj", subject, "-days", "2", "-sha256",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    "-out", `${name}.crt`,
  ]); // prettier-ignore
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "coffer-teller-pki-"));
  authority(dir, "ca", "/CN=Coffer test CA");
  authority(dir, "stranger-ca", "/CN=Somebody else's CA");
  issue(
    dir,
    "server",
    "ca",
    "/CN=localhost",
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
  );
  issue(dir, "client", "ca", "/CN=app_test_coffer", "extendedKeyUsage=clientAuth\n");
  issue(dir, "stranger", "stranger-ca", "/CN=app_someone_else", "extendedKeyUsage=clientAuth\n");
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  return {
    dir,
    caCertPath: join(dir, "ca.crt"),
    clientCertPath: join(dir, "client.crt"),
    clientKeyPath: join(dir, "client.key"),
    caCert: read("ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
    strangerCert: read("stranger.crt"),
    strangerKey: read("stranger.key"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
