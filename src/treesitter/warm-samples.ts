import type { LanguageId } from "./languages.js";

/**
 * A few lines of ordinary code per language, parsed once before a repository's first map (see `warmTagTools`). A
 * grammar's code is compiled by V8 function by function as a parse first reaches it, and first runs unoptimised: a
 * one-line warm-up reaches little of its lexer, so the map's first files paid for the rest (a cold map of a Python
 * repository of a few hundred kilobytes took about twice its warm parse time). These cover the common tokens and
 * forms — definitions, calls, strings, numbers, comments, control flow — not the whole language.
 */
const JS_CORE = `import { fetchText } from "./fetch-text.js";
// A comment, and a block one
/* block */
export const LIMIT = 10, name = 'x', big = 1_000n;
export async function load(path, { retries = 2 } = {}) {
  for (let i = 0; i < retries; i++) {
    try {
      const text = await fetchText(path, "utf8");
      return text.split("\\n").map((line) => line.trim()).filter(Boolean);
    } catch (error) {
      if (error?.code === "ENOENT") return null;
    } finally {
      console.log(\`tried \${i + 1} of \${retries}\`);
    }
  }
  while (false) break;
  return [1, 2.5, -3, true, null, undefined, /re+gex/g];
}
export class Store extends Base {
  #items = new Map();
  static create() { return new Store(); }
  get size() { return this.#items.size; }
  add(key, value) { this.#items.set(key, value ?? {}); return this; }
}
`;

const TS_CORE = `${JS_CORE}
export interface Options<T = unknown> { readonly id: number; name?: string; items: T[] }
export type Result = { ok: true; value: string } | { ok: false; error: Error };
enum Mode { Fast = "fast", Slow = "slow" }
export function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = value[key];
  return out satisfies Partial<T>;
}
abstract class Shape implements Drawable { protected abstract area(): number; private id!: string }
`;

const SAMPLES: Record<LanguageId, string> = {
  javascript: JS_CORE,
  typescript: TS_CORE,
  tsx: `${TS_CORE}
export function Card({ title, children }: { title: string; children?: React.ReactNode }) {
  return <div className="card" onClick={() => open(title)}>{title}<span>{children}</span></div>;
}
`,
  python: `import os
from typing import Optional, List


class Thing(Base):
    """A thing."""

    count: int = 0

    def __init__(self, name: str, items: Optional[List[int]] = None) -> None:
        self.name = name
        self.items = items or []
        # a comment
        if not name:
            raise ValueError("no name: %s" % name)
        elif len(name) > 10:
            self.name = name[:10]

    @property
    def total(self):
        return sum(x * 2 for x in self.items if x > 0)

    def walk(self, path, *args, **kwargs):
        for i, p in enumerate(os.listdir(path)):
            try:
                with open(p, "rb") as f:
                    yield {"i": i, "data": f.read(), 'x': [1, 2.5, None, True]}
            except (IOError, OSError) as e:
                continue
        return lambda a, b=1: a + b


def helper(a, b):
    x = f"{a}-{b!r}"
    return x if a else not b
`,
  go: `package store

import (
	"fmt"
	"strings"
)

// Store holds items.
type Store struct {
	items map[string]int
	name  string
}

type Getter interface{ Get(key string) (int, bool) }

func New(name string) *Store {
	return &Store{items: map[string]int{}, name: strings.TrimSpace(name)}
}

func (s *Store) Get(key string) (int, bool) {
	v, ok := s.items[key]
	if !ok {
		return 0, false
	}
	for i := 0; i < 3; i++ {
		v += i * 2
	}
	defer fmt.Println("got", key, 1.5, 'x', \`raw\`)
	return v, true
}
`,
  rust: `use std::collections::HashMap;

/// A store of items.
#[derive(Debug, Clone, Default)]
pub struct Store {
    items: HashMap<String, i64>,
    name: String,
}

pub trait Getter {
    fn get(&self, key: &str) -> Option<i64>;
}

impl Store {
    pub fn new(name: &str) -> Self {
        Store { items: HashMap::new(), name: name.trim().to_string() }
    }

    pub fn add(&mut self, key: &str, value: i64) -> &mut Self {
        if let Some(old) = self.items.get_mut(key) {
            *old += value;
        } else {
            self.items.insert(key.to_owned(), value * 2);
        }
        for i in 0..3 { println!("{} {}", i, 1.5); }
        match value { 0 => {}, n if n > 10 => return self, _ => (), }
        self
    }
}
`,
  java: `package com.example.store;

import java.util.HashMap;
import java.util.Map;

/** A store of items. */
public class Store<T> implements Getter {
    private final Map<String, Integer> items = new HashMap<>();
    private static final String NAME = "store";

    public Store(String name) {
        super();
    }

    @Override
    public int get(String key) {
        Integer v = items.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing " + key);
        }
        for (int i = 0; i < 3; i++) { v += i * 2; }
        return v;
    }

    public void clear() {
        items.clear();
    }
}
`,
  c: `#include <stdio.h>
#include "store.h"

#define LIMIT 10

typedef struct store {
    char *name;
    int count;
} store_t;

static int helper(const char *s, size_t n);

/* Add one item. */
int store_add(store_t *s, const char *key, int value) {
    if (s == NULL || key == NULL) {
        return -1;
    }
    for (int i = 0; i < LIMIT; i++) {
        s->count += value * 2;
    }
    printf("%s %d %f\\n", key, value, 1.5);
    return s->count;
}
`,
  cpp: `#include <string>
#include <vector>

namespace shapes {

class Shape {
 public:
  virtual ~Shape() = default;
  virtual double area() const = 0;
};

template <typename T>
class Box : public Shape {
 public:
  explicit Box(T side) : side_(side) {}
  double area() const override { return side_ * side_; }

 private:
  T side_;
};

double total(const std::vector<Shape*>& shapes) {
  double sum = 0.0;
  for (auto* s : shapes) sum += s->area();
  return sum;
}

}  // namespace shapes
`,
  ruby: `require "json"

module Store
  # A store of items.
  class Items < Base
    attr_reader :name

    def initialize(name, items = [])
      @name = name
      @items = items
    end

    def add(key, value = 1)
      raise ArgumentError, "no key" if key.nil?
      @items << { key: key, value: value * 2, "x" => 1.5 }
      @items.each_with_index { |item, i| puts "#{i}: #{item}" }
      self
    end
  end
end
`,
  c_sharp: `using System;
using System.Collections.Generic;

namespace Example.Store
{
    /// <summary>A store of items.</summary>
    public class Store<T> : IGetter where T : class
    {
        private readonly Dictionary<string, int> items = new();
        public string Name { get; set; } = "store";

        public int Get(string key)
        {
            if (!items.TryGetValue(key, out var v))
            {
                throw new ArgumentException($"missing {key}");
            }
            for (var i = 0; i < 3; i++) { v += i * 2; }
            return v;
        }

        public void Clear() => items.Clear();
    }
}
`,
  php: `<?php

namespace App\\Store;

use App\\Base;

/** A store of items. */
class Store extends Base implements Getter
{
    private array $items = [];
    const LIMIT = 10;

    public function __construct(private string $name) {}

    public function get(string $key): ?int
    {
        if (!isset($this->items[$key])) {
            throw new \\InvalidArgumentException("missing $key");
        }
        foreach ($this->items as $k => $v) { echo $k . ': ' . $v * 2; }
        return $this->items[$key] ?? null;
    }
}

function helper($a, $b = 1.5) { return $a + $b; }
`,
};

/** The warm-up sample of a language (see {@link SAMPLES}). */
export function warmSample(id: LanguageId): string {
  return SAMPLES[id];
}
