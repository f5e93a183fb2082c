// The RTL sources of qacc in compile order (packages first), one per line: the only list of them.
// CMake reads it (cmake/qacc.cmake) for every Verilated build and lint test; Verilator takes it as
// `-F rtl/files.f` (paths relative to this file).
qacc_lint.vlt
qacc_pkg.sv
qacc_desc_fields.sv
qacc_pe.sv
qacc_mac_array.sv
qacc_clamp.sv
qacc_requant_lane.sv
qacc_requant_unit.sv
qacc_lut_unit.sv
qacc_slope_check.sv
qacc_slope_regs.sv
qacc_slope_unit.sv
qacc_add_lane.sv
qacc_sram.sv
qacc_win_port.sv
qacc_sram_win.sv
qacc_lut_sram.sv
qacc_fifo.sv
qacc_gemm_check.sv
qacc_elt_check.sv
qacc_regs.sv
qacc_ctrl.sv
qacc_desc_check.sv
qacc_fetch.sv
qacc_prog.sv
qacc_mem_port.sv
qacc_dma_rows.sv
qacc_dma_lanes.sv
qacc_dma.sv
qacc_move.sv
qacc_eltwise.sv
qacc_top.sv
