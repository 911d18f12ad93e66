// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A torch.nn.MultiheadAttention's parameters from a folder of .npy files
// named after its state_dict keys, as `np.save(key + ".npy",
// t.detach().numpy())` writes them for every key of module.state_dict():
//   in_proj_weight.npy (3E, E), in_proj_bias.npy (3E,),
//   out_proj.weight.npy (E, E), out_proj.bias.npy (E,).
// E is the embeddings' width (d_model); the heads split it, head_dim = E/h.

#include "multihead.h"
#include "expected.h"

#include <QString>

namespace attnlab {

// The split layout's parameters for `heads` heads over E = `embedDim`.
// Errors name the folder or the file and the expected shape, e.g.
// "in_proj_weight.npy has shape (16, 48) but (48, 16) = (3E, E) for E = 16
// was expected"; h must divide E.
attn::Expected<attn::SplitHeads> readMhaState(const QString& dir, int embedDim, int heads);

}  // namespace attnlab
