/**
 * The placement of the canvas's edge labels: labels that would sit on one another, or on a state,
 * are moved apart along the vertical, deterministically, and a free label stays where it is.
 */
import { expect } from 'chai';
import {
  overlaps,
  placeLabels,
  type LabelBox,
  type Rect,
} from '../../console/src/pages/flow-editor/label-placement.ts';

const box = (label: LabelBox, at: { x: number; y: number }): Rect => ({
  x: at.x - label.width / 2,
  y: at.y - label.height / 2,
  width: label.width,
  height: label.height,
});

describe('edge label placement', () => {
  it('when no label touches another or a state, then each stays at its edge’s middle', () => {
    const labels = [
      { id: 'a', x: 100, y: 100, width: 60, height: 18 },
      { id: 'b', x: 300, y: 100, width: 60, height: 18 },
    ];
    const placed = placeLabels(labels, [{ x: 0, y: 0, width: 230, height: 60 }]);
    expect(placed.get('a')).to.deep.equal({ x: 100, y: 100 });
    expect(placed.get('b')).to.deep.equal({ x: 300, y: 100 });
  });

  it('when four ways out of a state lead to the same state, then their labels are stacked apart, none on a state', () => {
    const states: Rect[] = [
      { x: 0, y: 0, width: 230, height: 80 },
      { x: 0, y: 250, width: 230, height: 80 },
    ];
    const labels = ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      x: 115,
      y: 165,
      width: 120,
      height: 18,
    }));
    const placed = placeLabels(labels, states);
    const boxes = labels.map((l) => box(l, placed.get(l.id)!));
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) expect(overlaps(a, b)).to.equal(false);
      for (const s of states) expect(overlaps(a, s)).to.equal(false);
      expect(a.x).to.equal(115 - 60);
    }
    // The first keeps its place; the order given decides, so a flow draws the same way each time.
    expect(placed.get('a')).to.deep.equal({ x: 115, y: 165 });
    expect(placeLabels(labels, states)).to.deep.equal(placed);
  });

  it('when no place up or down is clear of the states, then the labels still keep clear of one another', () => {
    const wall: Rect[] = [{ x: -1000, y: -1000, width: 3000, height: 3000 }];
    const labels = ['a', 'b'].map((id) => ({ id, x: 0, y: 0, width: 50, height: 18 }));
    const placed = placeLabels(labels, wall);
    expect(overlaps(box(labels[0]!, placed.get('a')!), box(labels[1]!, placed.get('b')!))).to.equal(
      false,
    );
  });
});
