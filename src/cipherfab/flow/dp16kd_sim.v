// A simulation model of the ECP5 DP16KD block RAM, for simulating synthesized netlists
// (cipherfab's rekey check).  Yosys ships DP16KD as a black box only.
//
// Modelled: both ports, data widths 1, 2, 4, 9 and 18, synchronous reads with REGMODE
// NOREG or OUTREG, chip-select decode (CSDECODE), writes (WRITEMODE NORMAL keeps the
// output, READBEFOREWRITE shows the old word, WRITETHROUGH the new one).  Not modelled:
// the 36-bit mode, resets of the output register, GSR.  The contents follow the
// INITVAL layout nextpnr and prjtrellis use: 2048 nine-bit words, INITVAL_i holding 16
// eighteen-bit words (2-bit padding) = nine-bit words 32*i .. 32*i+31; in the 1/2/4-bit
// modes eight bits of each nine-bit word are used, in the 9/18-bit modes all nine.
// INIT_FILE (not a DP16KD parameter, cipherfab's): if set, the contents are read from
// that file at start-up instead, 2048 nine-bit words in hex as ``.bram_init`` lists them,
// so one compiled model serves every set of contents (rekey's check of each key).
module DP16KD(
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input CEA, OCEA, CLKA, WEA, RSTA,
  input CSA2, CSA1, CSA0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input CEB, OCEB, CLKB, WEB, RSTB,
  input CSB2, CSB1, CSB0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter CLKAMUX = "CLKA";
  parameter CLKBMUX = "CLKB";
  parameter GSR = "ENABLED";
  parameter WID = 0;
  parameter INIT_DATA = "STATIC";
  parameter INIT_FILE = "";
  parameter INITVAL_00 = 320'h0; parameter INITVAL_01 = 320'h0; parameter INITVAL_02 = 320'h0; parameter INITVAL_03 = 320'h0;
  parameter INITVAL_04 = 320'h0; parameter INITVAL_05 = 320'h0; parameter INITVAL_06 = 320'h0; parameter INITVAL_07 = 320'h0;
  parameter INITVAL_08 = 320'h0; parameter INITVAL_09 = 320'h0; parameter INITVAL_0A = 320'h0; parameter INITVAL_0B = 320'h0;
  parameter INITVAL_0C = 320'h0; parameter INITVAL_0D = 320'h0; parameter INITVAL_0E = 320'h0; parameter INITVAL_0F = 320'h0;
  parameter INITVAL_10 = 320'h0; parameter INITVAL_11 = 320'h0; parameter INITVAL_12 = 320'h0; parameter INITVAL_13 = 320'h0;
  parameter INITVAL_14 = 320'h0; parameter INITVAL_15 = 320'h0; parameter INITVAL_16 = 320'h0; parameter INITVAL_17 = 320'h0;
  parameter INITVAL_18 = 320'h0; parameter INITVAL_19 = 320'h0; parameter INITVAL_1A = 320'h0; parameter INITVAL_1B = 320'h0;
  parameter INITVAL_1C = 320'h0; parameter INITVAL_1D = 320'h0; parameter INITVAL_1E = 320'h0; parameter INITVAL_1F = 320'h0;
  parameter INITVAL_20 = 320'h0; parameter INITVAL_21 = 320'h0; parameter INITVAL_22 = 320'h0; parameter INITVAL_23 = 320'h0;
  parameter INITVAL_24 = 320'h0; parameter INITVAL_25 = 320'h0; parameter INITVAL_26 = 320'h0; parameter INITVAL_27 = 320'h0;
  parameter INITVAL_28 = 320'h0; parameter INITVAL_29 = 320'h0; parameter INITVAL_2A = 320'h0; parameter INITVAL_2B = 320'h0;
  parameter INITVAL_2C = 320'h0; parameter INITVAL_2D = 320'h0; parameter INITVAL_2E = 320'h0; parameter INITVAL_2F = 320'h0;
  parameter INITVAL_30 = 320'h0; parameter INITVAL_31 = 320'h0; parameter INITVAL_32 = 320'h0; parameter INITVAL_33 = 320'h0;
  parameter INITVAL_34 = 320'h0; parameter INITVAL_35 = 320'h0; parameter INITVAL_36 = 320'h0; parameter INITVAL_37 = 320'h0;
  parameter INITVAL_38 = 320'h0; parameter INITVAL_39 = 320'h0; parameter INITVAL_3A = 320'h0; parameter INITVAL_3B = 320'h0;
  parameter INITVAL_3C = 320'h0; parameter INITVAL_3D = 320'h0; parameter INITVAL_3E = 320'h0; parameter INITVAL_3F = 320'h0;

  // the contents as the 64 INITVAL rows; nine-bit word w is row w / 32, 18-bit slot (w % 32) / 2,
  // half w % 2 (each slot 20 bits wide)
  reg [319:0] rows [0:63];
  reg [8:0] init_words [0:2047];
  integer w;
  initial begin
    rows[8'h00] = INITVAL_00; rows[8'h01] = INITVAL_01; rows[8'h02] = INITVAL_02; rows[8'h03] = INITVAL_03;
    rows[8'h04] = INITVAL_04; rows[8'h05] = INITVAL_05; rows[8'h06] = INITVAL_06; rows[8'h07] = INITVAL_07;
    rows[8'h08] = INITVAL_08; rows[8'h09] = INITVAL_09; rows[8'h0A] = INITVAL_0A; rows[8'h0B] = INITVAL_0B;
    rows[8'h0C] = INITVAL_0C; rows[8'h0D] = INITVAL_0D; rows[8'h0E] = INITVAL_0E; rows[8'h0F] = INITVAL_0F;
    rows[8'h10] = INITVAL_10; rows[8'h11] = INITVAL_11; rows[8'h12] = INITVAL_12; rows[8'h13] = INITVAL_13;
    rows[8'h14] = INITVAL_14; rows[8'h15] = INITVAL_15; rows[8'h16] = INITVAL_16; rows[8'h17] = INITVAL_17;
    rows[8'h18] = INITVAL_18; rows[8'h19] = INITVAL_19; rows[8'h1A] = INITVAL_1A; rows[8'h1B] = INITVAL_1B;
    rows[8'h1C] = INITVAL_1C; rows[8'h1D] = INITVAL_1D; rows[8'h1E] = INITVAL_1E; rows[8'h1F] = INITVAL_1F;
    rows[8'h20] = INITVAL_20; rows[8'h21] = INITVAL_21; rows[8'h22] = INITVAL_22; rows[8'h23] = INITVAL_23;
    rows[8'h24] = INITVAL_24; rows[8'h25] = INITVAL_25; rows[8'h26] = INITVAL_26; rows[8'h27] = INITVAL_27;
    rows[8'h28] = INITVAL_28; rows[8'h29] = INITVAL_29; rows[8'h2A] = INITVAL_2A; rows[8'h2B] = INITVAL_2B;
    rows[8'h2C] = INITVAL_2C; rows[8'h2D] = INITVAL_2D; rows[8'h2E] = INITVAL_2E; rows[8'h2F] = INITVAL_2F;
    rows[8'h30] = INITVAL_30; rows[8'h31] = INITVAL_31; rows[8'h32] = INITVAL_32; rows[8'h33] = INITVAL_33;
    rows[8'h34] = INITVAL_34; rows[8'h35] = INITVAL_35; rows[8'h36] = INITVAL_36; rows[8'h37] = INITVAL_37;
    rows[8'h38] = INITVAL_38; rows[8'h39] = INITVAL_39; rows[8'h3A] = INITVAL_3A; rows[8'h3B] = INITVAL_3B;
    rows[8'h3C] = INITVAL_3C; rows[8'h3D] = INITVAL_3D; rows[8'h3E] = INITVAL_3E; rows[8'h3F] = INITVAL_3F;
    if (INIT_FILE != "") begin
      $readmemh(INIT_FILE, init_words);
      for (w = 0; w < 2048; w = w + 1)
        rows[w / 32][20 * ((w % 32) / 2) + 9 * (w % 2) +: 9] = init_words[w];
    end
  end

  // bit b of word a in a data-width-w mode: its place in the flat space of 2048 nine-bit words
  // (the 1/2/4-bit modes use eight bits of each), then its row and column
  function automatic integer flat(input integer w, input integer a, input integer b);
    integer n;
    begin
      n = a * w + b;
      flat = (w >= 9) ? n : 9 * (n / 8) + n % 8;
    end
  endfunction
  function automatic integer row_of(input integer n);
    row_of = (n / 9) / 32;
  endfunction
  function automatic integer col_of(input integer n);
    col_of = 20 * (((n / 9) % 32) / 2) + 9 * ((n / 9) % 2) + n % 9;
  endfunction

  function automatic integer addr_of(input integer w, input [13:0] ad);
    addr_of = (w == 1) ? ad : (w == 2) ? ad[13:1] : (w == 4) ? ad[13:2] : (w == 9) ? ad[13:3] : ad[13:4];
  endfunction

  function automatic [2:0] decode(input [39:0] s);   // "0bxyz" -> 3'bxyz
    decode = {s[16], s[8], s[0]};
  endfunction

  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire sel_a = {CSA2, CSA1, CSA0} == decode(CSDECODE_A);
  wire sel_b = {CSB2, CSB1, CSB0} == decode(CSDECODE_B);

  integer k;
  reg [17:0] qa = 0, qb = 0, ra = 0, rb = 0;

  always @(posedge CLKA) begin
    if (CEA && sel_a) begin
      if (WEA) begin
        if (WRITEMODE_A == "READBEFOREWRITE")
          for (k = 0; k < 18; k = k + 1) qa[k] <= (k < DATA_WIDTH_A) ? rows[row_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))][col_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))] : 1'b0;
        else if (WRITEMODE_A == "WRITETHROUGH")
          qa <= dia;
        for (k = 0; k < DATA_WIDTH_A; k = k + 1) rows[row_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))][col_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))] <= dia[k];
      end else
        for (k = 0; k < 18; k = k + 1) qa[k] <= (k < DATA_WIDTH_A) ? rows[row_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))][col_of(flat(DATA_WIDTH_A, addr_of(DATA_WIDTH_A, ada), k))] : 1'b0;
    end
    if (OCEA) ra <= qa;
  end

  always @(posedge CLKB) begin
    if (CEB && sel_b) begin
      if (WEB) begin
        if (WRITEMODE_B == "READBEFOREWRITE")
          for (k = 0; k < 18; k = k + 1) qb[k] <= (k < DATA_WIDTH_B) ? rows[row_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))][col_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))] : 1'b0;
        else if (WRITEMODE_B == "WRITETHROUGH")
          qb <= dib;
        for (k = 0; k < DATA_WIDTH_B; k = k + 1) rows[row_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))][col_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))] <= dib[k];
      end else
        for (k = 0; k < 18; k = k + 1) qb[k] <= (k < DATA_WIDTH_B) ? rows[row_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))][col_of(flat(DATA_WIDTH_B, addr_of(DATA_WIDTH_B, adb), k))] : 1'b0;
    end
    if (OCEB) rb <= qb;
  end

  wire [17:0] doa = (REGMODE_A == "OUTREG") ? ra : qa;
  wire [17:0] dob = (REGMODE_B == "OUTREG") ? rb : qb;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule
