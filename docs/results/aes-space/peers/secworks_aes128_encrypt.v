// cipherfab's wrapper for the secworks/aes peer (its sources are not committed: see README.md).
// Encryption with 128-bit keys, as every cipherfab point of the aes-space study: encdec and
// keylen are tied, so synthesis removes the decipher block and the 256-bit key paths.
module secworks_aes128_encrypt(
    input  wire         clk,
    input  wire         reset_n,
    input  wire         init,
    input  wire         next,
    output wire         ready,
    input  wire [127:0] key,
    input  wire [127:0] block,
    output wire [127:0] result,
    output wire         result_valid
);
    aes_core core(
        .clk(clk), .reset_n(reset_n), .encdec(1'b1), .init(init), .next(next), .ready(ready),
        .key({key, 128'h0}), .keylen(1'b0), .block(block), .result(result),
        .result_valid(result_valid));
endmodule
