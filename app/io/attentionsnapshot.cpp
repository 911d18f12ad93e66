#include "attentionsnapshot.h"

namespace attnlab {

attn::Expected<AttentionSnapshot> computeSnapshot(const attn::ModelConfig& config,
                                                  const attn::AttentionOptions& options)
{
    attn::Expected<attn::Model> model = attn::buildModel(config);
    if (!model)
        return model.error();
    const attn::Model& m = model.value();
    attn::Expected<attn::AttentionResult> result =
        attn::computeAttention(m.X, m.Wq, m.Wk, m.Wv, options);
    if (!result)
        return result.error();

    AttentionSnapshot snapshot;
    snapshot.config = config;
    snapshot.options = options;
    snapshot.model = std::move(model).value();
    snapshot.result = std::move(result).value();
    snapshot.stats = attn::computeStatistics(snapshot.result);
    return snapshot;
}

}  // namespace attnlab
