export default function Page() {
  return <h1>categories-page</h1>;
}
