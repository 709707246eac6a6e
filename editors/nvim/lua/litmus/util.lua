-- Helpers shared by the plugin's modules (no state of their own).

local U = {}

U.MODELS = { 'sc', 'tso', 'pso' }
--- The axiomatic models' keys (herd's AArch64 and RISC-V tests), as `litmus/status` names them.
U.AXIOMATIC = { 'aarch64', 'riscv', 'ppc', 'arm', 'c' }

--- How a model is named to the user: `SC`, `aarch64.cat`, and `C` for herd's C tests (checked
--- under the user's own model, the kernel's or C11).
function U.model_label(m)
  if m == 'c' then
    return 'C'
  end
  return vim.tbl_contains(U.AXIOMATIC, m) and (m .. '.cat') or m:upper()
end
U.SYMBOL = { holds = '✓', fails = '✗', incomplete = '?', running = '…' }

--- Asks the server for the current buffer's code lenses and draws them, unless the buffer was
--- wiped before the reply (Neovim 0.7's own `vim.lsp.codelens.refresh` raises "Invalid buffer
--- id" drawing a reply for a wiped buffer).
function U.refresh_lenses()
  local b = vim.api.nvim_get_current_buf()
  local params = { textDocument = vim.lsp.util.make_text_document_params(b) }
  pcall(vim.lsp.buf_request, b, 'textDocument/codeLens', params, function(err, result, ctx, config)
    local target = (ctx and ctx.bufnr) or b
    if not vim.api.nvim_buf_is_valid(target) then
      return
    end
    vim.lsp.codelens.on_codelens(err, result, ctx, config)
  end)
end

function U.notify(msg, level)
  vim.notify('litmus: ' .. msg, level or vim.log.levels.INFO)
end

function U.litmus_client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  -- vim.lsp.get_clients is 0.10+; buf_get_clients is deprecated there.
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr, name = 'litmus' })
    or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(clients) do
    if c.name == 'litmus' then
      return c
    end
  end
  return nil
end

--- client:request on 0.11+ (method call), client.request before.
function U.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function U.root_dir(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local dir = fname ~= '' and vim.fn.fnamemodify(fname, ':p:h') or vim.fn.getcwd()
  local found = vim.fn.finddir('.git', dir .. ';')
  if found ~= '' then
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
  return dir
end

return U
