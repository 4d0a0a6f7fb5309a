// Measures the secworks/aes peer's cycles per block (FIPS-197 C.1 vector) through the
// wrapper: key expansion after init, then blocks started back to back, with `next` driven
// combinationally from `ready` (the fastest a master can start the next block).
// iverilog -g2012 -o tb secworks_cycles_tb.v secworks_aes128_encrypt.v src/secworks/*.v && vvp tb
`timescale 1ns/1ps
module secworks_cycles_tb;
    reg clk = 0, reset_n = 0, init = 0, go = 0;
    reg [127:0] key = 128'h000102030405060708090a0b0c0d0e0f;
    reg [127:0] block = 128'h00112233445566778899aabbccddeeff;
    wire ready, result_valid;
    wire [127:0] result;
    wire next = go & ready;
    integer cycle = 0, t_init = -1, t_prev = -1, starts = 0;
    always #5 clk = ~clk;
    secworks_aes128_encrypt dut(.clk(clk), .reset_n(reset_n), .init(init), .next(next),
        .ready(ready), .key(key), .block(block), .result(result), .result_valid(result_valid));
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (init) t_init <= cycle;
        if (go && ready && t_prev < 0)
            $display("key setup: %0d cycles from init to the first block", cycle - t_init);
        if (next) begin
            if (t_prev >= 0) begin
                if (result !== 128'h69c4e0d86a7b0430d8cdb78070b4c55a) begin
                    $display("FAIL: result %h", result); $finish;
                end
                $display("block %0d: %0d cycles per block, result %h", starts, cycle - t_prev, result);
            end
            t_prev <= cycle; starts <= starts + 1;
            if (starts == 4) $finish;
        end
    end
    initial begin
        repeat (3) @(posedge clk);
        reset_n <= 1;
        @(posedge clk); init <= 1;
        @(posedge clk); init <= 0;
        @(posedge clk); go <= 1;
    end
endmodule
