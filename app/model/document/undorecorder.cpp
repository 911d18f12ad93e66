// SPDX-License-Identifier: GPL-3.0-or-later
#include "undorecorder.h"

#include "headparams.h"

#include "model.h"
#include "session.h"

#include <QUndoStack>

#include <algorithm>
#include <optional>

namespace attnlab {

UndoRecorder::UndoRecorder(Session* session, QUndoStack* stack, QObject* parent)
    : QObject(parent), session_(session), stack_(stack), last_(std::make_shared<LabSnapshot>(current()))
{
    // A change emits both; the second finds nothing new.
    connect(session_, &Session::resultChanged, this, &UndoRecorder::record);
    connect(session_, &Session::parametersChanged, this, &UndoRecorder::record);
    connect(session_, &Session::cellEdited, this, &UndoRecorder::cellEdited);
    // A redraw that fails ends in a problem, not in a result.
    connect(session_, &Session::problemChanged, this, [this] {
        if (pendingRedraw_ && !session_->isComputing() && !session_->problem().isEmpty())
            record();
    });
}

LabSnapshot UndoRecorder::current() const
{
    LabSnapshot s;
    s.stale = !session_->problem().isEmpty();
    s.editedCells = session_->inputs().editedCells;
    // The user's cells over the draw while they are fewer than a quarter of
    // the lab's entries (a cell takes three entries' room): a whole matrix
    // imported is kept as it is.
    const auto entries = [this] {
        std::size_t n = 0;
        for (MatrixId m : {MatrixId::X, MatrixId::Wq, MatrixId::Wk, MatrixId::Wv})
            n += std::size_t(session_->inputs().matrix(m).size());
        return n;
    };
    std::optional<std::vector<LabCell>> cells;
    if (!s.stale && std::size_t(s.editedCells) <= entries() / 4)
        cells = session_->cellsOverDraw();
    if (cells) {
        s.drawn = true;
        s.cells = std::move(*cells);
        s.lab.config = session_->inputs().config;
        s.lab.options = session_->inputs().options;
        s.lab.heads = session_->inputs().heads;
        s.lab.selectedHead = session_->inputs().selectedHead;
    } else {
        s.lab = session_->inputs().state();
    }
    return s;
}

void UndoRecorder::beginGesture()
{
    gesture_ = true;
    ++run_;
}

void UndoRecorder::endGesture()
{
    gesture_ = false;
    ++run_;
}

void UndoRecorder::breakMerge()
{
    ++run_;
}

void UndoRecorder::recordAs(const QString& text, const std::function<void()>& change)
{
    nextText_ = text;
    change();
    nextText_.clear();
}

void UndoRecorder::resync()
{
    last_ = std::make_shared<LabSnapshot>(current());
    nextText_.clear();
    ++run_;
}

void UndoRecorder::apply(const LabSnapshot& snapshot)
{
    applying_ = true;
    // The head shown stays the user's choice, not the history's.
    const int head = session_->inputs().selectedHead;
    // The seed's draw alone is redrawn by the parameters (in the worker
    // when large); with the user's cells it is drawn here and set whole.
    LabState lab = snapshot.lab;
    bool matrices = !snapshot.stale && !(snapshot.drawn && snapshot.cells.empty());
    if (matrices && snapshot.drawn) {
        attn::Expected<LabState> made = snapshotLab(snapshot);
        matrices = bool(made);
        if (made)
            lab = std::move(made.value());
    }
    if (lab.heads.multiHead() && matrices && head < lab.multiHead.headCount()) {
        lab.selectedHead = head;
        attn::HeadWeights w = lab.multiHead.head(head);
        lab.Wq = std::move(w.Wq);
        lab.Wk = std::move(w.Wk);
        lab.Wv = std::move(w.Wv);
    }
    if (!matrices || !session_->setState(lab))
        session_->setParameters(lab.config, lab.options, lab.heads);
    session_->selectHead(head);
    applying_ = false;
    last_ = std::make_shared<LabSnapshot>(current());
    ++run_;
}

void UndoRecorder::record()
{
    if (applying_)
        return;
    // While a redraw is in flight the session pairs the new parameters with
    // the old matrices: that is no state to undo to (it made a second step,
    // "Regenerate from the seed", when the redraw came).
    // So does a new sentence waiting for the borrowed GPT-2 head's pass.
    if (session_->isRedrawing() || session_->inputs().awaitingBorrow) {
        pendingRedraw_ = true;
        return;
    }
    pendingRedraw_ = false;
    if (snapshotMatches(*last_, *session_))
        return;
    std::shared_ptr<LabSnapshot> now = std::make_shared<LabSnapshot>(current());
    const QString text = nextText_.isEmpty() ? describe(*last_, *now) : nextText_;
    nextText_.clear();
    // Typing: the sentence changed and nothing else of the configuration
    // (read in place: last_ holds the whole lab).
    const attn::ModelConfig& was = last_->lab.config;
    const attn::ModelConfig& is = now->lab.config;
    const bool typing = was.sentence != is.sentence && was.tokenizer == is.tokenizer && was.seed == is.seed
                        && was.init == is.init && was.dModel == is.dModel && was.dK == is.dK
                        && was.dV == is.dV;
    SnapshotCommand::MergeId id = gesture_ ? SnapshotCommand::Gesture
                                  : typing ? SnapshotCommand::Typing
                                           : SnapshotCommand::NoMerge;
    if (id == SnapshotCommand::NoMerge)
        ++run_;
    // The step and the recorder share the new snapshot (an 11 MB lab at 512
    // tokens and 8 heads) until a typed cell changes the recorder's.
    std::shared_ptr<const LabSnapshot> before = std::move(last_);
    last_ = now;
    stack_->push(new SnapshotCommand(text, std::move(before), std::move(now), id, run_,
                                     [this](const LabSnapshot& s) { apply(s); }));
}

void UndoRecorder::cellEdited(const CellEdit& edit)
{
    const LabState& lab = last_->lab;
    const bool heads = lab.heads.multiHead();
    auto stepText = [&] {
        if (!nextText_.isEmpty())
            return nextText_;
        QString text = tr("Edit %1(%2, %3)").arg(matrixName(edit.which)).arg(edit.row + 1).arg(edit.col + 1);
        if (edit.which != MatrixId::X && heads)
            text += tr(" of head %1").arg(edit.head + 1);
        return text;
    };
    // last_ keeps no matrices but the user's cells over the seed's draw: it
    // is the session before the edit when the cell was the user's with the
    // value before, or one more cell is the user's now; the recorder's
    // snapshot is then the session's again (cells, not a copy of the lab).
    // Over the draw alone (the first cell), the step's "before" is that
    // snapshot: undo draws it again, and no cell counts as edited.
    if (last_->drawn) {
        if (applying_ || session_->isRedrawing() || session_->inputs().awaitingBorrow
            || !sameParameters(*last_, *session_))
            return;  // record() makes the step (or apply() takes the state)
        const auto had = std::find_if(last_->cells.begin(), last_->cells.end(), [&](const LabCell& c) {
            return c.which == edit.which && c.row == edit.row && c.col == edit.col
                   && (c.which == MatrixId::X || c.head == edit.head);
        });
        const bool wasUsers = had != last_->cells.end();
        if (wasUsers ? had->value != edit.before : session_->inputs().editedCells != last_->editedCells + 1)
            return;
        std::shared_ptr<const LabSnapshot> before = std::move(last_);
        last_ = std::make_shared<LabSnapshot>(current());
        ++run_;
        const QString text = stepText();
        nextText_.clear();
        const auto set = [this](const CellEdit& e, double value) { applyCell(e, value); };
        if (before->cells.empty())
            stack_->push(
                new CellCommand(text, edit, set, *before, [this](const LabSnapshot& s) { apply(s); }));
        else
            stack_->push(new CellCommand(text, edit, set));
        return;
    }
    // last_ is the session before the edit, unless a change is still to be
    // recorded (then record() makes one step of both).
    if (last_->stale || lab.heads != session_->inputs().heads)
        return;
    double was = 0.0;
    if (edit.which != MatrixId::X && heads) {
        if (!headCell(lab.multiHead, edit.head, int(edit.which) - 1, edit.row, edit.col, &was))
            return;
    } else {
        const attn::Matrix& m = edit.which == MatrixId::X    ? lab.X
                                : edit.which == MatrixId::Wq ? lab.Wq
                                : edit.which == MatrixId::Wk ? lab.Wk
                                                             : lab.Wv;
        if (edit.row >= m.rows() || edit.col >= m.cols())
            return;
        was = m(edit.row, edit.col);
    }
    if (was != edit.before)
        return;
    // The recorder's own copy from here on (a step shares it until now).
    if (last_.use_count() > 1)
        last_ = std::make_shared<LabSnapshot>(*last_);
    setLabCell(&last_->lab, edit, edit.after);
    last_->editedCells = session_->inputs().editedCells;
    if (applying_)
        return;
    ++run_;
    const QString text = stepText();
    nextText_.clear();
    stack_->push(
        new CellCommand(text, edit, [this](const CellEdit& e, double value) { applyCell(e, value); }));
}

void UndoRecorder::applyCell(const CellEdit& edit, double value)
{
    applying_ = true;
    const int shown = session_->inputs().selectedHead;
    const bool otherHead =
        edit.which != MatrixId::X && session_->inputs().heads.multiHead() && edit.head != shown;
    if (otherHead)
        session_->selectHead(edit.head);
    session_->setMatrixCell(edit.which, edit.row, edit.col, value);
    if (otherHead)
        session_->selectHead(shown);
    applying_ = false;
    if (!snapshotMatches(*last_, *session_))
        last_ = std::make_shared<LabSnapshot>(current());
    ++run_;
}

QString UndoRecorder::describe(const LabSnapshot& before, const LabSnapshot& after)
{
    const attn::ModelConfig& a = before.lab.config;
    const attn::ModelConfig& b = after.lab.config;
    const attn::AttentionOptions& o = before.lab.options;
    const attn::AttentionOptions& p = after.lab.options;
    const BorrowedHead& was = before.lab.borrowed;
    const BorrowedHead& now = after.lab.borrowed;
    if (now.active()
        && (!was.active() || was.layer != now.layer || was.head != now.head || was.identity != now.identity))
        return tr("Show GPT-2 layer %1, head %2").arg(now.layer + 1).arg(now.head + 1);
    QStringList changes;
    if (a.sentence != b.sentence)
        changes << tr("Edit the sentence");
    if (a.tokenizer != b.tokenizer)
        changes << tr("Tokenizer: %1").arg(QLatin1String(attn::tokenizerModeName(b.tokenizer)));
    if (a.seed != b.seed)
        changes << tr("Seed %1").arg(b.seed);
    if (a.init != b.init)
        changes << tr("Initialisation: %1").arg(QLatin1String(attn::initModeName(b.init)));
    if (a.dModel != b.dModel)
        changes << tr("d_model = %1").arg(b.dModel);
    if (a.dK != b.dK)
        changes << tr("d_k = %1").arg(b.dK);
    if (a.dV != b.dV)
        changes << tr("d_v = %1").arg(b.dV);
    if (o.scale != p.scale)
        changes << tr("Scaling: %1").arg(QLatin1String(attn::scaleModeName(p.scale)));
    if (o.customDivisor != p.customDivisor)
        changes << tr("Divisor %1").arg(p.customDivisor);
    const attn::AttentionMask maskWas = o.effectiveMask(), maskIs = p.effectiveMask();
    const auto plain = [](const attn::AttentionMask& m) {
        return m.kind == attn::AttentionMask::Kind::None || m.kind == attn::AttentionMask::Kind::Causal;
    };
    if (maskWas != maskIs && plain(maskWas) && plain(maskIs))
        changes << (p.causal ? tr("Causal mask on") : tr("Causal mask off"));
    else if (maskWas != maskIs)
        changes << tr("Mask: %1").arg(QString::fromStdString(maskIs.name()));
    const attn::HeadsConfig& g = before.lab.heads;
    const attn::HeadsConfig& k = after.lab.heads;
    if (g.heads != k.heads)
        changes << (k.heads == 1 ? tr("1 head") : tr("%1 heads").arg(k.heads));
    if (g.layout != k.layout)
        changes << tr("Head layout: %1").arg(QLatin1String(attn::headLayoutName(k.layout)));
    if (g.outputProjection != k.outputProjection)
        changes << (k.outputProjection ? tr("Output projection on") : tr("Output projection off"));
    if (g.torchInit != k.torchInit)
        changes << (k.torchInit ? tr("Initialisation: torch-mha") : tr("Initialisation: seed"));
    if (changes.size() > 1)
        return tr("Change the parameters");
    if (changes.size() == 1)
        return changes.front();
    if (before.editedCells > 0 && after.editedCells == 0)
        return tr("Regenerate from the seed");

    // A snapshot of the seed's draw keeps no matrices: draw them (with its
    // cells) to compare. With several heads, both sides show the head
    // selected after the change. A snapshot's matrices are read where they
    // are; only a seed's draw and a head's weights (d_model x d_k) are made
    // here.
    const int head = after.lab.selectedHead;
    struct Shown {
        LabState drawn;           // made: the snapshot's draw
        attn::Matrix Wq, Wk, Wv;  // made: a head's
        const attn::Matrix* m[4] = {nullptr, nullptr, nullptr, nullptr};
    };
    auto shown = [head](const LabSnapshot& s, Shown* out) {
        const LabState* lab = &s.lab;
        if (s.drawn) {
            if (attn::Expected<LabState> made = snapshotLab(s))
                out->drawn = std::move(made.value());
            lab = &out->drawn;
        }
        out->m[0] = &lab->X;
        out->m[1] = &lab->Wq;
        out->m[2] = &lab->Wk;
        out->m[3] = &lab->Wv;
        if (lab->heads.multiHead() && head < lab->multiHead.headCount()) {
            attn::HeadWeights w = lab->multiHead.head(head);
            out->Wq = std::move(w.Wq);
            out->Wk = std::move(w.Wk);
            out->Wv = std::move(w.Wv);
            out->m[1] = &out->Wq;
            out->m[2] = &out->Wk;
            out->m[3] = &out->Wv;
        }
    };
    Shown from, to;
    shown(before, &from);
    shown(after, &to);
    const MatrixId ids[] = {MatrixId::X, MatrixId::Wq, MatrixId::Wk, MatrixId::Wv};
    const bool multiHead = after.lab.heads.multiHead();
    int changedMatrices = 0;
    QString text;
    for (int k = 0; k < 4; ++k) {
        const attn::Matrix& a = *from.m[k];
        const attn::Matrix& b = *to.m[k];
        if (a.rows() != b.rows() || a.cols() != b.cols()) {
            ++changedMatrices;
            continue;
        }
        Eigen::Index count = 0, row = 0, col = 0;
        for (Eigen::Index i = 0; i < b.rows(); ++i)  // rows first: the matrices are row-major
            for (Eigen::Index j = 0; j < b.cols(); ++j)
                if (a(i, j) != b(i, j)) {
                    if (count++ == 0) {
                        row = i;
                        col = j;
                    }
                }
        if (count == 0)
            continue;
        ++changedMatrices;
        if (count == 1) {
            text = tr("Edit %1(%2, %3)").arg(matrixName(ids[k])).arg(row + 1).arg(col + 1);
            if (ids[k] != MatrixId::X && multiHead)
                text += tr(" of head %1").arg(head + 1);
        } else {
            text = tr("Replace %1").arg(matrixName(ids[k]));
        }
    }
    if (changedMatrices == 1)
        return text;
    return tr("Regenerate from the seed");
}

}  // namespace attnlab
