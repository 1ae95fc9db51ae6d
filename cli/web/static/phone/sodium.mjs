/* libsodium's raw exports, offered to the core in Pyodide as the module "p2p10_sodium"
   (p2p10/page_primitives.py says what each function must do: as rbcl's of the same name).

   libsodium-sumo is libsodium compiled to WebAssembly (the module libsodium.js is built on). Its
   public wrappers (libsodium-wrappers) throw where a result is the identity point, which the
   protocol needs (a zero scalar, the initial deck), so the raw exports are called, as rbcl calls
   libsodium's C functions: an output buffer cleared first, the return code passed back or ignored
   as the Python side decides. Bytes cross as hexadecimal strings (see page_primitives.py). */

function fromHex(hex) {
  const out = new Uint8Array(hex.length >>> 1);
  for (let i = 0; i < out.length; i += 1) {
    out[i] = parseInt(hex.substr(i * 2, 2), 16);
  }
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function toHex(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 1) { out += HEX[bytes[i]]; }
  return out;
}

/* The module object registered with pyodide.registerJsModule("p2p10_sodium", ...). */
export async function loadSodium(url) {
  const factory = (await import(url)).default;
  const M = await factory();
  if (M._sodium_init() < 0) { throw new Error("libsodium did not start"); }

  /* Bytes on the WebAssembly heap for the length of one call. */
  function withHeap(inputs, outputs, call) {
    const held = [];
    try {
      const at = (bytes) => {
        const address = M._malloc(Math.max(bytes.length, 1));
        if (!address) { throw new Error("libsodium: out of memory"); }
        held.push([address, bytes.length]);
        M.HEAPU8.set(bytes, address);
        return address;
      };
      const ins = inputs.map((hex) => at(fromHex(hex)));
      const outs = outputs.map((size) => at(new Uint8Array(size)));
      const code = call(ins, outs);
      const read = outs.map((address, i) => toHex(M.HEAPU8.subarray(address, address + outputs[i])));
      return { code, read };
    } finally {
      for (const [address, size] of held) { M.HEAPU8.fill(0, address, address + size); M._free(address); }
    }
  }

  const RISTRETTO = new Set([
    "crypto_scalarmult_ristretto255", "crypto_scalarmult_ristretto255_base",
    "crypto_core_ristretto255_add", "crypto_core_ristretto255_sub", "crypto_core_ristretto255_from_hash",
    "crypto_core_ristretto255_scalar_reduce", "crypto_core_ristretto255_scalar_add",
    "crypto_core_ristretto255_scalar_sub", "crypto_core_ristretto255_scalar_mul",
    "crypto_core_ristretto255_scalar_negate"]);

  return {
    /* name(out, ...inputs) on a cleared buffer of outSize bytes: the output, whatever the code */
    raw(name, outSize, ...inputs) {
      if (!RISTRETTO.has(name)) { throw new Error("not a function of the core: " + name); }
      return withHeap(inputs, [outSize], (ins, outs) => M["_" + name](outs[0], ...ins)).read[0];
    },
    is_valid_point(point) {
      return withHeap([point], [], (ins) => M._crypto_core_ristretto255_is_valid_point(ins[0])).code;
    },
    /* the public key (32 bytes) then the secret key (64) of a 32-byte seed */
    seed_keypair(seed) {
      const done = withHeap([seed], [32, 64], (ins, outs) => M._crypto_sign_seed_keypair(outs[0], outs[1], ins[0]));
      if (done.code !== 0) { throw new Error("libsodium: crypto_sign_seed_keypair failed"); }
      return done.read[0] + done.read[1];
    },
    sign(secret, message) {
      const length = message.length >>> 1;
      const done = withHeap([message, secret], [64],
        (ins, outs) => M._crypto_sign_detached(outs[0], 0, ins[0], length, 0, ins[1]));
      if (done.code !== 0) { throw new Error("libsodium: crypto_sign_detached failed"); }
      return done.read[0];
    },
    /* 0: the signature is the key's of the message */
    verify(publicKey, message, signature) {
      const length = message.length >>> 1;
      return withHeap([signature, message, publicKey], [],
        (ins) => M._crypto_sign_verify_detached(ins[0], ins[1], length, 0, ins[2])).code;
    },
  };
}
