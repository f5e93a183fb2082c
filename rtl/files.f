// The RTL sources of qacc in compile order (packages first), one per line: the only list of them.
// CMake reads it (cmake/qacc.cmake) for every Verilated build and lint test; Verilator takes it as
// `-F rtl/files.f` (paths relative to this file).
qacc_lint.vlt
qacc_pkg.sv
qacc_pe.sv
qacc_mac_array.sv
qacc_clamp.sv
qacc_requant_lane.sv
qacc_requant_unit.sv
qacc_sram.sv
qacc_sram_win.sv
qacc_regs.sv
qacc_ctrl.sv
qacc_top.sv
