// Test core for cipherfab.sim.verilated, following the cipherfab core port
// convention.  "Cipher": block_out byte j = block_in byte j ^ key byte (j mod
// KEY_BYTES), additionally inverted when decrypting.  One block in flight,
// fixed LATENCY cycles from input handshake to block_out_valid, 1-entry output
// register; a key is accepted only when idle, and a block offered in the same
// cycle as a key waits until that key is taken (the core contract).
//   xorcore        KEY_BITS=128, BLOCK_BITS=128, LATENCY=11
//   xorcore_dec    same, with block_in_decrypt
//   xorcore_des    KEY_BITS=64, BLOCK_BITS=64, LATENCY=5, with block_in_decrypt
//   xorcore_k256   KEY_BITS=256, BLOCK_BITS=128, LATENCY=2
//   xorcore_mute   never raises block_out_valid (hang detection)
//   xorcore_glitch drops block_out_valid without block_out_ready (protocol check)
module xorcore_impl #(
    parameter KEY_BITS = 128, BLOCK_BITS = 128, LATENCY = 11, MUTE = 0, GLITCH = 0
) (
    input clk, rst,
    input [KEY_BITS-1:0] key, input key_valid, output key_ready,
    input [BLOCK_BITS-1:0] block_in, input block_in_decrypt, input block_in_valid,
    output block_in_ready,
    output reg [BLOCK_BITS-1:0] block_out, output reg block_out_valid, input block_out_ready,
    output busy
);
    localparam KB = KEY_BITS / 8, BB = BLOCK_BITS / 8;
    reg [KEY_BITS-1:0] k;
    reg [BLOCK_BITS-1:0] work;
    reg running;
    reg [7:0] cnt;
    wire [BLOCK_BITS-1:0] kx;
    wire [KEY_BITS-1:0] k_now = (key_valid && key_ready) ? key : k;  // a key taken this cycle applies
    genvar j;
    generate
        for (j = 0; j < BB; j = j + 1) begin : g_rep
            assign kx[BLOCK_BITS-1-8*j -: 8] = k_now[KEY_BITS-1-8*(j % KB) -: 8];
        end
    endgenerate

    assign block_in_ready = !running && (!key_valid || key_ready);
    assign key_ready = !running && !block_out_valid;
    assign busy = running || block_out_valid;

    always @(posedge clk) begin
        if (rst) begin
            running <= 0;
            block_out_valid <= 0;
            cnt <= 0;
        end else begin
            if (block_out_valid && block_out_ready) block_out_valid <= 0;
            if (GLITCH != 0 && block_out_valid && !block_out_ready && cnt == 0) block_out_valid <= 0;
            if (key_valid && key_ready) k <= key;
            if (block_in_valid && block_in_ready) begin
                running <= 1;
                cnt <= 1;
                work <= block_in ^ (block_in_decrypt ? ~kx : kx);
            end else if (running) begin
                if (cnt < LATENCY - 1) cnt <= cnt + 1;
                else if (MUTE == 0 && (!block_out_valid || block_out_ready)) begin
                    block_out <= work;
                    block_out_valid <= 1;
                    running <= 0;
                    cnt <= 0;
                end
            end
        end
    end
endmodule


module xorcore (
    input clk, rst,
    input [127:0] key, input key_valid, output key_ready,
    input [127:0] block_in, input block_in_valid, output block_in_ready,
    output [127:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(128), .BLOCK_BITS(128), .LATENCY(11), .MUTE(0), .GLITCH(0)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(1'b0),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule

module xorcore_dec (
    input clk, rst,
    input [127:0] key, input key_valid, output key_ready,
    input [127:0] block_in, input block_in_decrypt, input block_in_valid, output block_in_ready,
    output [127:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(128), .BLOCK_BITS(128), .LATENCY(11), .MUTE(0), .GLITCH(0)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(block_in_decrypt),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule

module xorcore_des (
    input clk, rst,
    input [63:0] key, input key_valid, output key_ready,
    input [63:0] block_in, input block_in_decrypt, input block_in_valid, output block_in_ready,
    output [63:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(64), .BLOCK_BITS(64), .LATENCY(5), .MUTE(0), .GLITCH(0)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(block_in_decrypt),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule

module xorcore_k256 (
    input clk, rst,
    input [255:0] key, input key_valid, output key_ready,
    input [127:0] block_in, input block_in_valid, output block_in_ready,
    output [127:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(256), .BLOCK_BITS(128), .LATENCY(2), .MUTE(0), .GLITCH(0)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(1'b0),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule

module xorcore_mute (
    input clk, rst,
    input [127:0] key, input key_valid, output key_ready,
    input [127:0] block_in, input block_in_valid, output block_in_ready,
    output [127:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(128), .BLOCK_BITS(128), .LATENCY(11), .MUTE(1), .GLITCH(0)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(1'b0),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule

module xorcore_glitch (
    input clk, rst,
    input [127:0] key, input key_valid, output key_ready,
    input [127:0] block_in, input block_in_valid, output block_in_ready,
    output [127:0] block_out, output block_out_valid, input block_out_ready,
    output busy
);
    xorcore_impl #(.KEY_BITS(128), .BLOCK_BITS(128), .LATENCY(11), .MUTE(0), .GLITCH(1)) u (
        .clk(clk), .rst(rst), .key(key), .key_valid(key_valid), .key_ready(key_ready),
        .block_in(block_in), .block_in_decrypt(1'b0),
        .block_in_valid(block_in_valid), .block_in_ready(block_in_ready),
        .block_out(block_out), .block_out_valid(block_out_valid),
        .block_out_ready(block_out_ready), .busy(busy));
endmodule
