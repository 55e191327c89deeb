import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import type { Category, Tag } from "../../api/schemas";
import {
  CATEGORIES_KEY,
  CategorySelect,
  TAGS_KEY,
  useCategories,
  useTags,
  type FlatCategory,
} from "../../components/taxonomy";
import { COUNT_KEY, LIST_KEY } from "../../components/transactions/query";

/** How many transactions carry a category (a parent counts its children's) or a tag. */
function useUsage(query: { category_slug?: string; tags?: string }, enabled: boolean) {
  return useQuery({
    queryKey: [COUNT_KEY, query],
    enabled,
    queryFn: () => call(api.GET("/api/v1/transactions/count", { params: { query } })),
  });
}

/**
 * Refreshes what a taxonomy change touches. `gone` is the usage count of a category or tag that no
 * longer exists: it is dropped, not asked again (an unknown category is a 400).
 */
function useInvalidateTaxonomy() {
  const qc = useQueryClient();
  return (gone?: { category_slug?: string; tags?: string }) => {
    if (gone) qc.removeQueries({ queryKey: [COUNT_KEY, gone], exact: true });
    const isGone = (key: readonly unknown[]) => gone !== undefined && JSON.stringify(key[1]) === JSON.stringify(gone);
    void qc.invalidateQueries({ queryKey: CATEGORIES_KEY });
    void qc.invalidateQueries({ queryKey: TAGS_KEY });
    void qc.invalidateQueries({ queryKey: [LIST_KEY] });
    void qc.invalidateQueries({ queryKey: [COUNT_KEY], predicate: (q) => !isGone(q.queryKey) });
    void qc.invalidateQueries({ queryKey: ["rules"] });
  };
}

type Mode = "view" | "rename" | "merge" | "delete";

/** One category: rename (name and slug), merge into another, delete (asking where its transactions go). */
function CategoryRow({ c }: { c: FlatCategory }) {
  const invalidate = useInvalidateTaxonomy();
  const [mode, setMode] = useState<Mode>("view");
  const [name, setName] = useState(c.display_name);
  const [slug, setSlug] = useState(c.slug);
  const [target, setTarget] = useState("");
  const usage = useUsage({ category_slug: c.slug }, mode === "delete");
  const done = () => {
    setMode("view");
    invalidate();
  };
  const gone = () => {
    setMode("view");
    invalidate({ category_slug: c.slug });
  };
  const rename = useMutation({
    mutationFn: () =>
      call(
        api.PUT("/api/v1/categories/{id}", {
          params: { path: { id: c.slug } },
          body: { display_name: name, ...(slug !== c.slug ? { slug } : {}) },
        }),
      ),
    onSuccess: done,
  });
  const merge = useMutation({
    mutationFn: (into: string) =>
      call(api.POST("/api/v1/categories/{id}/merge", { params: { path: { id: c.slug } }, body: { into } })),
    onSuccess: gone,
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/v1/categories/{id}", { params: { path: { id: c.slug } } })),
    onSuccess: gone,
  });
  const error = rename.error ?? merge.error ?? remove.error;
  const label = c.display_name;
  return (
    <li className={c.depth ? "child-category" : "parent-category"}>
      <div className="spread">
        <span>
          <strong>{c.display_name}</strong> <code className="muted">{c.slug}</code>
        </span>
        <span className="row">
          <button type="button" onClick={() => setMode("rename")} aria-label={`Rename ${label}`}>
            Rename
          </button>
          <button type="button" onClick={() => setMode("merge")} aria-label={`Merge ${label}`}>
            Merge…
          </button>
          <button type="button" className="danger" onClick={() => setMode("delete")} aria-label={`Delete ${label}`}>
            Delete…
          </button>
        </span>
      </div>
      {mode === "rename" ? (
        <RenameForm
          label={`Rename ${label}`}
          name={name}
          slug={slug}
          onName={setName}
          onSlug={setSlug}
          pending={rename.isPending}
          onSave={() => rename.mutate()}
          onCancel={() => setMode("view")}
        />
      ) : null}
      {mode === "merge" ? (
        <form
          className="row"
          aria-label={`Merge ${label}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (target) merge.mutate(target);
          }}
        >
          <CategorySelect
            label={`Merge ${label} into`}
            emptyLabel="Choose a category"
            value={target}
            onChange={setTarget}
          />
          <button type="submit" className="primary" disabled={!target || merge.isPending}>
            Merge
          </button>
          <button type="button" onClick={() => setMode("view")}>
            Cancel
          </button>
          <p className="muted">Its transactions and sub-categories move into the other category; then it is deleted.</p>
        </form>
      ) : null}
      {mode === "delete" ? (
        <div className="confirm" role="group" aria-label={`Delete ${label}`}>
          {usage.isPending ? <Loading what="how many transactions use it" /> : null}
          <ErrorMessage error={usage.error} />
          {usage.data && usage.data.count > 0 ? (
            <form
              className="row"
              onSubmit={(e) => {
                e.preventDefault();
                if (target) merge.mutate(target);
                else remove.mutate();
              }}
            >
              <p>
                {usage.data.count.toLocaleString()} transactions use “{label}”. Where should they go?
              </p>
              <CategorySelect
                label="Move its transactions to"
                emptyLabel="Leave them uncategorized"
                value={target}
                onChange={setTarget}
              />
              <button type="submit" className="danger" disabled={merge.isPending || remove.isPending}>
                Delete “{label}”
              </button>
              <button type="button" onClick={() => setMode("view")}>
                Cancel
              </button>
            </form>
          ) : usage.data ? (
            <div className="row">
              <p>No transaction uses “{label}”.</p>
              <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                Delete “{label}”
              </button>
              <button type="button" onClick={() => setMode("view")}>
                Cancel
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      <ErrorMessage error={error} />
    </li>
  );
}

function NewCategory({ parents }: { parents: Category[] }) {
  const invalidate = useInvalidateTaxonomy();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [parent, setParent] = useState("");
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/v1/categories", {
          body: { display_name: name, ...(slug ? { slug } : {}), ...(parent ? { parent_slug: parent } : {}) },
        }),
      ),
    onSuccess: () => {
      setName("");
      setSlug("");
      invalidate();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New category">
      <h2>New category</h2>
      <div className="row">
        <label>
          Category name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Slug (optional)
          <input value={slug} onChange={(e) => setSlug(e.target.value)} placeholder="derived from the name" />
        </label>
        <label>
          Parent
          <select value={parent} onChange={(e) => setParent(e.target.value)}>
            <option value="">None (top level)</option>
            {parents.map((p) => (
              <option key={p.slug} value={p.slug}>
                {p.display_name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Add category
        </button>
      </div>
      {create.isSuccess ? <p role="status">Added “{create.data.display_name}”.</p> : null}
      <ErrorMessage error={create.error} />
    </form>
  );
}

function TagRow({ t }: { t: Tag }) {
  const invalidate = useInvalidateTaxonomy();
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [name, setName] = useState(t.display_name);
  const [slug, setSlug] = useState(t.slug);
  const usage = useUsage({ tags: t.slug }, mode === "delete");
  const done = () => {
    setMode("view");
    invalidate();
  };
  const rename = useMutation({
    mutationFn: () =>
      call(
        api.PATCH("/api/v1/tags/{id}", {
          params: { path: { id: t.slug } },
          body: { display_name: name, ...(slug !== t.slug ? { slug } : {}) },
        }),
      ),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () => call(api.DELETE("/api/v1/tags/{id}", { params: { path: { id: t.slug } } })),
    onSuccess: () => {
      setMode("view");
      invalidate({ tags: t.slug });
    },
  });
  return (
    <li>
      <div className="spread">
        <span>
          <strong>{t.display_name}</strong> <code className="muted">{t.slug}</code>
        </span>
        <span className="row">
          <button type="button" onClick={() => setMode("rename")} aria-label={`Rename tag ${t.display_name}`}>
            Rename
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => setMode("delete")}
            aria-label={`Delete tag ${t.display_name}`}
          >
            Delete…
          </button>
        </span>
      </div>
      {mode === "rename" ? (
        <RenameForm
          label={`Rename tag ${t.display_name}`}
          name={name}
          slug={slug}
          onName={setName}
          onSlug={setSlug}
          pending={rename.isPending}
          onSave={() => rename.mutate()}
          onCancel={() => setMode("view")}
        />
      ) : null}
      {mode === "delete" ? (
        <div className="row">
          <p>
            {usage.data
              ? `Deleting removes the tag from ${usage.data.count.toLocaleString()} transactions.`
              : "Counting its transactions…"}
          </p>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Delete tag “{t.display_name}”
          </button>
          <button type="button" onClick={() => setMode("view")}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorMessage error={rename.error ?? remove.error ?? usage.error} />
    </li>
  );
}

function NewTag() {
  const invalidate = useInvalidateTaxonomy();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const create = useMutation({
    mutationFn: () =>
      call(api.POST("/api/v1/tags", { body: { ...(name ? { display_name: name } : {}), ...(slug ? { slug } : {}) } })),
    onSuccess: () => {
      setName("");
      setSlug("");
      invalidate();
    },
  });
  return (
    <form
      className="row"
      aria-label="New tag"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <label>
        Tag name
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Tag slug
        <input value={slug} onChange={(e) => setSlug(e.target.value)} placeholder="tax_deductible" />
      </label>
      <button type="submit" className="primary" disabled={create.isPending || (!name && !slug)}>
        Add tag
      </button>
      <ErrorMessage error={create.error} />
    </form>
  );
}

/** /categories: the category tree and the tags, with create, rename, merge and delete. */
export default function CategoriesPage() {
  const cats = useCategories();
  const tags = useTags();
  return (
    <>
      <h1>Categories &amp; tags</h1>
      <div className="grid-2">
        <section className="card" aria-labelledby="h-cats">
          <h2 id="h-cats">Categories</h2>
          {cats.isPending ? <Loading what="categories" /> : null}
          <ErrorMessage error={cats.error} />
          <ul className="plain-list taxonomy">
            {cats.data?.flat.map((c) => (
              <CategoryRow key={c.id} c={c} />
            ))}
          </ul>
        </section>
        <div>
          <NewCategory parents={cats.data?.tree ?? []} />
          <section className="card" aria-labelledby="h-tags">
            <h2 id="h-tags">Tags</h2>
            {tags.isPending ? <Loading what="tags" /> : null}
            <ErrorMessage error={tags.error} />
            <ul className="plain-list taxonomy">
              {tags.data?.map((t) => (
                <TagRow key={t.id} t={t} />
              ))}
            </ul>
            <NewTag />
          </section>
        </div>
      </div>
    </>
  );
}

/** The rename form of a category or a tag: display name and slug. */
function RenameForm(props: {
  label: string;
  name: string;
  slug: string;
  onName: (v: string) => void;
  onSlug: (v: string) => void;
  pending: boolean;
  onSave: () => void;
  onCancel: () => void;
}) {
  return (
    <form
      className="row"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave();
      }}
    >
      <label>
        Display name
        <input value={props.name} onChange={(e) => props.onName(e.target.value)} required />
      </label>
      <label>
        Slug
        <input value={props.slug} onChange={(e) => props.onSlug(e.target.value)} required />
      </label>
      <button type="submit" className="primary" disabled={props.pending}>
        Save
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}
