/** Element `i` of `list` (negative counts from the end), or a thrown error naming the index: a test's lookup that must hit. */
export function at<T>(list: ArrayLike<T>, i: number): T {
  const value = list[i < 0 ? list.length + i : i];
  if (value === undefined) throw new Error(`expected an element at index ${i} of ${list.length}`);
  return value;
}
