-- Headless tests of editors/nvim, run by test/run.sh:
--   nvim --headless -u NONE -c 'luafile test/test.lua'
-- Environment: LITMUS_NVIM_DIR (editors/nvim), LITMUS_TEST_TMP (scratch dir), PYTHON (for the
-- scripted fake server), LITMUS_BIN (the real binary; its checks are skipped when unset).

-- The checks are in parts, run in this order with the helpers of helpers.lua:
-- filetype.lua, pure.lua, client_fake.lua, client_real.lua, client_c.lua (herd's C tests), client_dialects.lua.

local here = assert(os.getenv('LITMUS_NVIM_DIR'), 'LITMUS_NVIM_DIR not set') .. '/test/'
local H = dofile(here .. 'helpers.lua')
for _, part in ipairs({ 'filetype', 'pure', 'client_fake', 'client_real', 'client_c', 'client_dialects' }) do
  assert(loadfile(here .. part .. '.lua'))(H)
end

local passed, failed, skipped = H.summary()
H.out(string.format('%d passed, %d failed, %d skipped', passed, failed, skipped))
vim.cmd(failed == 0 and 'qall!' or 'cquit!')
