#include "parameterpanel.h"

#include "size_limits.h"
#include "session.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace attnlab {

namespace {

QSpinBox* dimensionSpin(const QString& name, int maximum, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(name);
    spin->setRange(1, maximum);
    spin->setAccelerated(true);
    spin->setKeyboardTracking(false);
    return spin;
}

}  // namespace

ParameterPanel::ParameterPanel(Session* session, QWidget* parent)
    : QWidget(parent), session_(session)
{
    seed_ = new QSpinBox(this);
    seed_->setObjectName(QStringLiteral("seedSpin"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setKeyboardTracking(false);
    seed_->setToolTip(tr("torch.manual_seed(seed): fixes the random draw of the embeddings X "
                         "and of W_q, W_k, W_v. Changing it redraws every matrix."));

    init_ = new QComboBox(this);
    init_->setObjectName(QStringLiteral("initCombo"));
    init_->addItem(tr("Article (PyTorch)"), int(attn::InitMode::Article));
    init_->addItem(tr("Standard normal"), int(attn::InitMode::StandardNormal));
    init_->addItem(tr("Unit variance"), int(attn::InitMode::UnitVariance));
    init_->setToolTip(tr("How X and the weights are drawn. Article: exactly Raschka's PyTorch "
                         "draws (X ~ N(0, 1), W ~ U[0, 1)). Standard normal: every entry N(0, 1). "
                         "Unit variance: W entries N(0, 1/d_model), so that q and k entries have "
                         "variance about 1, the assumption behind dividing by √d_k."));

    dModel_ = dimensionSpin(QStringLiteral("dModelSpin"), attn::kMaxDModel, this);
    dModel_->setToolTip(tr("d_model: the width of each embedding x_i. X is n × d_model and "
                           "W_q, W_k, W_v have d_model rows."));

    dKSlider_ = new QSlider(Qt::Horizontal, this);
    dKSlider_->setObjectName(QStringLiteral("dKSlider"));
    dKSlider_->setRange(1, attn::kMaxDHead);
    dKSlider_->setPageStep(8);
    dK_ = dimensionSpin(QStringLiteral("dKSpin"), attn::kMaxDHead, this);
    const QString dKTip = tr("d_k: the width of queries and keys. Q = X W_q and K = X W_k are "
                             "n × d_k; each score q_i · k_j sums d_k products, so its spread "
                             "grows with d_k, which is why the scores are divided by √d_k.");
    dKSlider_->setToolTip(dKTip);
    dK_->setToolTip(dKTip);

    dV_ = dimensionSpin(QStringLiteral("dVSpin"), attn::kMaxDHead, this);
    dV_->setToolTip(tr("d_v: the width of the values and of the context vectors. V = X W_v and "
                       "Z = A V are n × d_v; d_v does not change the weights."));

    scale_ = new QComboBox(this);
    scale_->setObjectName(QStringLiteral("scaleCombo"));
    scale_->addItem(tr("÷ √d_k"), int(attn::ScaleMode::SqrtDk));
    scale_->addItem(tr("none (÷ 1)"), int(attn::ScaleMode::None));
    scale_->addItem(tr("÷ custom divisor"), int(attn::ScaleMode::Custom));
    scale_->setToolTip(tr("What the scores are divided by before the softmax: √d_k as in the "
                          "transformer, nothing (watch the weights turn one-hot as d_k grows), "
                          "or a divisor of your own."));

    divisor_ = new QDoubleSpinBox(this);
    divisor_->setObjectName(QStringLiteral("divisorSpin"));
    divisor_->setDecimals(3);
    divisor_->setRange(0.001, 1e6);
    divisor_->setKeyboardTracking(false);
    divisor_->setToolTip(tr("The custom divisor: scaled scores = Q Kᵀ / divisor. Larger "
                            "divisors flatten the weights, smaller ones sharpen them."));

    causal_ = new QCheckBox(tr("&Causal mask"), this);
    causal_->setObjectName(QStringLiteral("causalCheck"));
    causal_->setToolTip(tr("Keys after the query get the score −∞ before the softmax (weight 0), "
                           "so token i attends only to tokens 1..i, as in a decoder."));

    regenerate_ = new QPushButton(tr("&Regenerate from seed"), this);
    regenerate_->setObjectName(QStringLiteral("regenerateButton"));
    regenerate_->setToolTip(tr("Redraw X, W_q, W_k and W_v from the seed, dropping hand edits."));

    // Two rows under the sentence, so that the maps keep the window's width:
    // the model (what is drawn from the seed) and the attention (how the
    // scores become weights).
    auto labelled = [this](const QString& text, QWidget* buddy) {
        auto* label = new QLabel(text, this);
        label->setBuddy(buddy);
        label->setToolTip(buddy->toolTip());
        return label;
    };
    auto heading = [this](const QString& text) {
        auto* label = new QLabel(text, this);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        return label;
    };
    dKSlider_->setMinimumWidth(120);
    auto* model = new QHBoxLayout;
    model->addWidget(heading(tr("Model")));
    model->addSpacing(6);
    model->addWidget(labelled(tr("S&eed:"), seed_));
    model->addWidget(seed_);
    model->addSpacing(10);
    model->addWidget(labelled(tr("&Initialisation:"), init_));
    model->addWidget(init_);
    model->addSpacing(10);
    model->addWidget(labelled(tr("d_&model:"), dModel_));
    model->addWidget(dModel_);
    model->addSpacing(10);
    model->addWidget(labelled(tr("d_&k:"), dK_));
    model->addWidget(dKSlider_, 1);
    model->addWidget(dK_);
    model->addSpacing(10);
    model->addWidget(labelled(tr("d_&v:"), dV_));
    model->addWidget(dV_);
    model->addSpacing(10);
    model->addWidget(regenerate_);

    auto* attention = new QHBoxLayout;
    attention->addWidget(heading(tr("Attention")));
    attention->addSpacing(6);
    attention->addWidget(labelled(tr("&Scale:"), scale_));
    attention->addWidget(scale_);
    attention->addSpacing(10);
    attention->addWidget(labelled(tr("&Divisor:"), divisor_));
    attention->addWidget(divisor_);
    attention->addSpacing(10);
    attention->addWidget(causal_);
    attention->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(model);
    layout->addLayout(attention);

    connect(seed_, &QSpinBox::valueChanged, session_,
            [this](int seed) { session_->setSeed(quint64(seed)); });
    connect(init_, &QComboBox::currentIndexChanged, this, [this](int index) {
        session_->setInit(attn::InitMode(init_->itemData(index).toInt()));
    });
    connect(dModel_, &QSpinBox::valueChanged, session_, &Session::setDModel);
    connect(dKSlider_, &QSlider::valueChanged, session_, &Session::setDK);
    connect(dK_, &QSpinBox::valueChanged, session_, &Session::setDK);
    connect(dV_, &QSpinBox::valueChanged, session_, &Session::setDV);
    connect(scale_, &QComboBox::currentIndexChanged, this, [this](int index) {
        session_->setScaleMode(attn::ScaleMode(scale_->itemData(index).toInt()));
    });
    connect(divisor_, &QDoubleSpinBox::valueChanged, session_, &Session::setCustomDivisor);
    connect(causal_, &QCheckBox::toggled, session_, &Session::setCausal);
    connect(regenerate_, &QPushButton::clicked, session_, &Session::regenerate);
    connect(session_, &Session::parametersChanged, this, &ParameterPanel::syncFromSession);
    syncFromSession();
}

void ParameterPanel::syncFromSession()
{
    const attn::ModelConfig& c = session_->config();
    const attn::AttentionOptions& o = session_->options();
    const QSignalBlocker b1(seed_), b2(init_), b3(dModel_), b4(dKSlider_), b5(dK_), b6(dV_),
        b7(scale_), b8(divisor_), b9(causal_);
    seed_->setValue(int(std::min<quint64>(c.seed, quint64(seed_->maximum()))));
    init_->setCurrentIndex(init_->findData(int(c.init)));
    dModel_->setValue(c.dModel);
    dKSlider_->setValue(c.dK);
    dK_->setValue(c.dK);
    dV_->setValue(c.dV);
    scale_->setCurrentIndex(scale_->findData(int(o.scale)));
    divisor_->setValue(o.customDivisor);
    divisor_->setEnabled(o.scale == attn::ScaleMode::Custom);
    causal_->setChecked(o.causal);
}

}  // namespace attnlab
